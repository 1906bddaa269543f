/** What other modules may use from the inbox: import from 'src/modules/inbox', nothing deeper. */
export { InboxModule } from './inbox.module';
export { ConversationsService } from './conversations.service';
export {
  ConversationOpenedHooks,
  type ConversationOpenedHook,
  type OpenedConversation,
} from './conversation-opened-hooks';
export { MessagesService, type OutboundReply, type ReplySender } from './messages.service';
export { InboundPipeline } from './pipeline/inbound-pipeline';
export {
  InboundStageOrder,
  PUBLISH_BEFORE_ORDER,
  type InboundStage,
  type InboundStageContext,
  type InboundStageResult,
} from './pipeline/inbound-stage';
export { OutboundRecoveryService } from './outbound/outbound-recovery.service';
export type { ConversationResponse, ConversationDetailResponse, MessageResponse } from './dto/conversation.dto';
export type { ConversationStatus, Priority } from './conversation.entity';
export type { MessageType, SenderType, DeliveryStatus } from './message.entity';
