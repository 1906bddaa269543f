import { ApiTokenEntity } from 'src/modules/developer/api-token.entity';
import { UserEntity } from 'src/modules/users/user.entity';
import { RolePermissionEntity } from 'src/modules/permissions/role-permission.entity';
import { QueueMemberEntity } from 'src/modules/queues/queue-member.entity';
import { QueueEntity } from 'src/modules/queues/queue.entity';
import { MembershipEntity } from 'src/modules/workspaces/membership.entity';
import { WorkspaceEntity } from 'src/modules/workspaces/workspace.entity';

/** Every TypeORM entity of the service. A module's new entity is added here (and its table in migrations/). */
export const ENTITIES = [
  WorkspaceEntity,
  UserEntity,
  MembershipEntity,
  ApiTokenEntity,
  RolePermissionEntity,
  QueueEntity,
  QueueMemberEntity,
];
