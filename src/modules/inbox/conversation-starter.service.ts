import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { EventBus } from 'src/core/events/event-bus';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ChannelsService } from 'src/modules/channels';
import { ContactsService } from 'src/modules/contacts';
import { ConversationOpener } from './conversation-opener.service';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';
import type { CreateConversationDto } from './dto/conversation-actions.dto';
import type { ConversationDetailResponse } from './dto/conversation.dto';
import { toConversationResponse } from './inbox.mapper';
import { MessagesService } from './messages.service';

/**
 * `POST /conversations`: a conversation started from our side (DESIGN §5.1), in one transaction:
 *
 * - the contact needs an identity on the channel (that is where replies go), the channel must be
 *   ACTIVE, and the contact must not have an open conversation there already (409: use that one);
 * - it joins `queueId` (default: the default queue) and is routed like an inbound one, by the
 *   queue's strategy (MANUAL or nobody available → waits unassigned);
 * - it is opened by ConversationOpener like an inbound one (so the SLA hook applies its policy in the
 *   same transaction), then `conversation.created` is published;
 *   the automatic ticket is for conversations the customer starts, so none is created here;
 * - `text` becomes the first OUTBOUND message through the normal reply path (PENDING, delivered by a
 *   job after commit), which stamps `firstResponseAt`.
 */
@Injectable()
export class ConversationStarter {
  constructor(
    private readonly tx: TransactionHost,
    private readonly conversations: ConversationsRepository,
    private readonly reader: ConversationsService,
    private readonly contacts: ContactsService,
    private readonly channels: ChannelsService,
    private readonly opener: ConversationOpener,
    private readonly messages: MessagesService,
    private readonly bus: EventBus,
  ) {}

  async create(ctx: TenantContext, dto: CreateConversationDto): Promise<ConversationDetailResponse> {
    const channel = await this.channels.get(ctx, dto.channelId);
    if (channel.status !== 'ACTIVE') throw AppException.field('channelId', 'is disconnected');
    const contact = await this.contacts.get(ctx, dto.contactId);
    const identity = contact.identities.find((i) => i.channelId === channel.id);
    if (!identity) throw AppException.field('contactId', 'has no identity on this channel');

    const conversation = await this.tx.run(async () => {
      const opened = await this.opener.openFor({
        channel,
        contactId: contact.id,
        externalId: identity.externalId,
        ...(dto.queueId ? { queueId: dto.queueId } : {}),
        priority: dto.priority ?? 'MEDIUM',
        subject: dto.subject ?? null,
        lastMessageAt: new Date(),
      });
      const created = opened.conversation;
      if (!opened.created) {
        throw AppException.conflict(`The contact already has an open conversation on this channel (${created.id})`);
      }
      await this.bus.publish('conversation.created', ctx.workspaceId, {
        conversation: toConversationResponse(created, contact.name),
        contact: { id: contact.id, name: contact.name, created: false },
      });
      if (dto.text) {
        await this.messages.sendReply(created.id, { text: dto.text }, { type: 'AGENT', id: ctx.actor.userId });
      }
      return this.conversations.getById(created.id);
    });
    return this.reader.detail(conversation);
  }
}
