import { DatabaseModule } from 'src/core/database/database.module';
import { MembershipEntity } from './membership.entity';
import { WorkspaceEntity } from './workspace.entity';
import { Module } from '@nestjs/common';
import { QueuesModule } from 'src/modules/queues';
import { UsersModule } from 'src/modules/users';
import { MembersController } from './members.controller';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

@Module({
  imports: [DatabaseModule.forEntities([MembershipEntity, WorkspaceEntity]), QueuesModule, UsersModule],
  controllers: [WorkspacesController, MembersController],
  providers: [WorkspacesRepository, MembersRepository, WorkspacesService, MembersService],
  exports: [WorkspacesService, MembersService],
})
export class WorkspacesModule {}
