/** What other modules may use from the inbox: import from 'src/modules/inbox', nothing deeper. */
export { InboxModule } from './inbox.module';
export { ConversationsService } from './conversations.service';
export { ConversationActionsService } from './conversation-actions.service';
export {
  ConversationOpenedHooks,
  type ConversationOpenedHook,
  type OpenedConversation,
} from './conversation-opened-hooks';
export {
  MessagesService,
  type HeldConversation,
  type OutboundReply,
  type ReplySender,
  type ReplyTo,
} from './messages.service';
export { ConversationOpener, type OpenConversationInput, type OpenedResult } from './conversation-opener.service';
export { InboundMessagesService, type AppendedInbound } from './inbound-messages.service';
export { OutboundRecoveryService } from './outbound/outbound-recovery.service';
export type { ConversationResponse, ConversationDetailResponse, MessageResponse } from './dto/conversation.dto';
export type { ConversationStatus, SuggestedReply } from './conversation.entity';
export type { MessageType, SenderType, DeliveryStatus } from './message.entity';
