import { DatabaseModule } from 'src/core/database/database.module';
import { ConversationNoteEntity } from './conversation-note.entity';
import { ConversationViewEntity } from './conversation-view.entity';
import { ConversationEntity } from './conversation.entity';
import { MessageEntity } from './message.entity';
import { Module, type OnModuleInit } from '@nestjs/common';
import { ChannelsModule } from 'src/modules/channels';
import { ContactMergeHooks, ContactsModule } from 'src/modules/contacts';
import { ConversationAssignmentsPort, QueuesModule } from 'src/modules/queues';
import { ConversationActionsService } from './conversation-actions.service';
import { ConversationNotesRepository } from './conversation-notes.repository';
import { ConversationOpenedHooks } from './conversation-opened-hooks';
import { ConversationStamps } from './conversation-stamps';
import { ConversationOpener } from './conversation-opener.service';
import { ConversationStarter } from './conversation-starter.service';
import { ConversationViewsController } from './conversation-views.controller';
import { InboundMessagesService } from './inbound-messages.service';
import { ConversationViewsRepository } from './conversation-views.repository';
import { ConversationViewsService } from './conversation-views.service';
import { ConversationsController } from './conversations.controller';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';
import { OutboundDeliveriesJob, OutboundDeliveryJob } from './jobs/outbound-delivery.job';
import { MessagesRepository } from './messages.repository';
import { MessagesService } from './messages.service';
import { OutboundDeliveryService } from './outbound/outbound-delivery.service';
import { OutboundRecoveryService } from './outbound/outbound-recovery.service';
import { OutboundSweepRepository } from './outbound/outbound-sweep.repository';

/**
 * Conversations and messages: the one place a conversation is opened (ConversationOpener, with its
 * "conversation opened" hooks), what the inbound pipeline writes (InboundMessagesService), the
 * agents' actions, views, and outbound replies with their delivery jobs.
 */
@Module({
  imports: [
    DatabaseModule.forEntities([ConversationNoteEntity, ConversationViewEntity, ConversationEntity, MessageEntity]),
    ChannelsModule,
    ContactsModule,
    QueuesModule,
  ],
  // Order matters: /conversations/views before /conversations/:id.
  controllers: [ConversationViewsController, ConversationsController],
  providers: [
    ConversationsRepository,
    ConversationNotesRepository,
    ConversationViewsRepository,
    ConversationViewsService,
    ConversationActionsService,
    ConversationOpenedHooks,
    ConversationOpener,
    ConversationStamps,
    ConversationStarter,
    MessagesRepository,
    OutboundSweepRepository,
    ConversationsService,
    MessagesService,
    OutboundDeliveryService,
    OutboundRecoveryService,
    InboundMessagesService,
    OutboundDeliveryJob,
    OutboundDeliveriesJob,
  ],
  exports: [
    ConversationsService,
    ConversationActionsService,
    ConversationOpener,
    ConversationOpenedHooks,
    InboundMessagesService,
    MessagesService,
    OutboundRecoveryService,
  ],
})
export class InboxModule implements OnModuleInit {
  constructor(
    private readonly mergeHooks: ContactMergeHooks,
    private readonly assignments: ConversationAssignmentsPort,
    private readonly conversations: ConversationsRepository,
    private readonly reader: ConversationsService,
  ) {}

  /**
   * A contact merge moves the duplicates' conversations (and so their messages) to the primary;
   * routing's automatic assignments and queue moves write conversations through this module.
   */
  onModuleInit(): void {
    this.assignments.register({
      lockOldestWaiting: (queueId) => this.conversations.lockOldestWaiting(queueId),
      assign: async (conversationId, userId) => {
        await this.conversations.assignWaiting(conversationId, userId);
        return this.reader.toResponse(await this.conversations.getById(conversationId));
      },
      moveQueue: (fromQueueId, toQueueId) => this.conversations.moveQueue(fromQueueId, toQueueId),
    });
    this.mergeHooks.register('conversations', (primaryId, duplicateIds) =>
      this.conversations.moveContact(duplicateIds, primaryId),
    );
  }
}
