import { Injectable } from '@nestjs/common';
import type { PublicResource } from 'src/core/events/event-bus';

/**
 * What routing needs to do to conversations. The conversations table belongs to the inbox, which
 * depends on this module (not the other way round), so the inbox implements this and registers it at
 * start-up (`InboxModule.onModuleInit`). Every method joins the caller's transaction.
 */
export interface ConversationAssignments {
  /** The oldest OPEN conversation waiting unassigned in the queue, locked (others skip it); null when none. */
  lockOldestWaiting(queueId: string): Promise<string | null>;
  /** An automatic assignment of a waiting conversation; returns the conversation in its public API shape. */
  assign(conversationId: string, userId: string): Promise<PublicResource>;
  /** A deleted queue's conversations join another queue (the default). */
  moveQueue(fromQueueId: string, toQueueId: string): Promise<void>;
}

/** Holds the inbox's ConversationAssignments (a port: queues defines it, inbox fills it). */
@Injectable()
export class ConversationAssignmentsPort implements ConversationAssignments {
  private impl: ConversationAssignments | null = null;

  register(impl: ConversationAssignments): void {
    this.impl = impl;
  }

  lockOldestWaiting(queueId: string): Promise<string | null> {
    return this.target().lockOldestWaiting(queueId);
  }

  assign(conversationId: string, userId: string): Promise<PublicResource> {
    return this.target().assign(conversationId, userId);
  }

  moveQueue(fromQueueId: string, toQueueId: string): Promise<void> {
    return this.target().moveQueue(fromQueueId, toQueueId);
  }

  private target(): ConversationAssignments {
    if (!this.impl) throw new Error('No ConversationAssignments registered (is InboxModule loaded?)');
    return this.impl;
  }
}
