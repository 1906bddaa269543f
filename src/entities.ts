import { AiConversationStateEntity } from 'src/modules/ai-agents/ai-conversation-state.entity';
import { CatalogImportEntity } from 'src/modules/catalogue/catalog-import.entity';
import { CatalogItemEntity } from 'src/modules/catalogue/catalog-item.entity';
import { CatalogWebsiteRunEntity } from 'src/modules/catalogue/catalog-website-run.entity';
import { CatalogWebsiteEntity } from 'src/modules/catalogue/catalog-website.entity';
import { CompanyEntity } from 'src/modules/contacts/company.entity';
import { ContactFieldEntity } from 'src/modules/contacts/contact-field.entity';
import { ContactIdentityEntity } from 'src/modules/contacts/contact-identity.entity';
import { ContactNoteEntity } from 'src/modules/contacts/contact-note.entity';
import { ContactEntity } from 'src/modules/contacts/contact.entity';
import { ChannelConnectionEntity } from 'src/modules/channels/channel-connection.entity';
import { ChannelReplyTokenEntity } from 'src/modules/channels/platforms/channel-reply-token.entity';
import { InboundEventEntity } from 'src/modules/inbound/events/inbound-event.entity';
import { ConversationNoteEntity } from 'src/modules/inbox/conversation-note.entity';
import { ConversationViewEntity } from 'src/modules/inbox/conversation-view.entity';
import { ConversationEntity } from 'src/modules/inbox/conversation.entity';
import { MessageEntity } from 'src/modules/inbox/message.entity';
import { ApiTokenEntity } from 'src/modules/developer/api-token.entity';
import { UserEntity } from 'src/modules/users/user.entity';
import { RolePermissionEntity } from 'src/modules/permissions/role-permission.entity';
import { ConversationSlaEntity } from 'src/modules/sla/conversation-sla.entity';
import { SlaPolicyEntity } from 'src/modules/sla/sla-policy.entity';
import { TicketCommentEntity } from 'src/modules/tickets/ticket-comment.entity';
import { TicketSettingsEntity } from 'src/modules/tickets/ticket-settings.entity';
import { TicketEntity } from 'src/modules/tickets/ticket.entity';
import { AgentStatusEntity } from 'src/modules/queues/agent-status.entity';
import { PresenceIntervalEntity } from 'src/modules/queues/presence-interval.entity';
import { QueueMemberEntity } from 'src/modules/queues/queue-member.entity';
import { QueueEntity } from 'src/modules/queues/queue.entity';
import { MembershipEntity } from 'src/modules/workspaces/membership.entity';
import { WorkspaceEntity } from 'src/modules/workspaces/workspace.entity';

/** Every TypeORM entity of the service. A module's new entity is added here (and its table in migrations/). */
export const ENTITIES = [
  AiConversationStateEntity,
  WorkspaceEntity,
  UserEntity,
  MembershipEntity,
  ApiTokenEntity,
  RolePermissionEntity,
  QueueEntity,
  QueueMemberEntity,
  AgentStatusEntity,
  PresenceIntervalEntity,
  ChannelConnectionEntity,
  ChannelReplyTokenEntity,
  InboundEventEntity,
  ConversationEntity,
  MessageEntity,
  ConversationNoteEntity,
  ConversationViewEntity,
  CompanyEntity,
  ContactEntity,
  ContactIdentityEntity,
  ContactNoteEntity,
  ContactFieldEntity,
  CatalogItemEntity,
  CatalogWebsiteEntity,
  CatalogWebsiteRunEntity,
  CatalogImportEntity,
  TicketEntity,
  TicketCommentEntity,
  TicketSettingsEntity,
  SlaPolicyEntity,
  ConversationSlaEntity,
];
