import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { ConversationsRepository } from './conversations.repository';

/** A customer message's stamp on its conversation: last message (time, preview) and last inbound time. */
export interface InboundStamp {
  readonly conversationId: string;
  readonly at: Date;
  readonly preview: string;
}

/** The key of a transaction's pending inbound stamps (TransactionHost.beforeCommit). */
const INBOUND_STAMPS = {};

/**
 * The conversations' inbound stamps, deferred to the end of the transaction (issue 16 item 3).
 *
 * Moving `last_message_at` changes four indexed columns' index entries: every stamp is a new version
 * of the conversation's row with new entries in its thirteen indexes. A pipeline group stored each
 * message with its stamp, then each AI reply stamped the same row again. Now a customer message's
 * stamp waits for the end of its transaction (or of its group's round), where a reply's statement
 * takes it (`take`: the reply's stamp carries `last_inbound_at` too, one row version for both) and
 * the stamps left are written in ONE statement, after the other deferred writes. What the event's
 * stages see of the conversation is built in memory with the stamp applied; no step of the
 * transaction reads the stamp columns back. Outside a transaction the stamp is written at once.
 */
@Injectable()
export class ConversationStamps {
  constructor(
    private readonly tx: TransactionHost,
    private readonly conversations: ConversationsRepository,
  ) {}

  async inbound(stamp: InboundStamp): Promise<void> {
    const pending = this.pending();
    if (pending) pending.set(stamp.conversationId, stamp);
    else await this.conversations.stampInbound([stamp]);
  }

  /** The pending inbound stamps of these conversations, taken out (their reply's statement writes them). */
  take(conversationIds: readonly string[]): Map<string, InboundStamp> {
    const taken = new Map<string, InboundStamp>();
    const pending = this.pending();
    if (!pending) return taken;
    for (const id of conversationIds) {
      const stamp = pending.get(id);
      if (stamp) {
        taken.set(id, stamp);
        pending.delete(id);
      }
    }
    return taken;
  }

  private pending(): Map<string, InboundStamp> | null {
    return this.tx.beforeCommit(
      INBOUND_STAMPS,
      () => new Map<string, InboundStamp>(),
      (stamps) => this.conversations.stampInbound([...stamps.values()]),
      { last: true },
    );
  }
}
