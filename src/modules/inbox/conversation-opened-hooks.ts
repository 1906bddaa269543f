import type { Priority } from 'src/core/domain/vocabulary';
import { Injectable } from '@nestjs/common';

/** The new conversation as a hook sees it (the fields a policy or a rule is chosen by). */
export interface OpenedConversation {
  readonly id: string;
  readonly channelId: string;
  readonly channelType: string;
  readonly contactId: string;
  readonly queueId: string | null;
  readonly assigneeId: string | null;
  readonly priority: Priority;
  readonly createdAt: Date;
}

/**
 * Runs inside the transaction that opened the conversation, right after its row is inserted and
 * before anyone hears of it (`conversation.created` comes later): use your repositories as usual
 * (TransactionHost gives them the opener's transaction) and never another connection. Throwing rolls
 * the opening back (an inbound event is then retried, `POST /conversations` answers the error).
 */
export type ConversationOpenedHook = (conversation: OpenedConversation) => Promise<void>;

/**
 * The typed, in-transaction hook "a conversation was opened", whichever path opened it (the inbound
 * pipeline or `POST /conversations`; both go through ConversationOpener). A module registers once at
 * start-up, e.g. `onModuleInit() { this.opened.register('sla', (c) => this.sla.applyToConversation(c)); }`.
 */
@Injectable()
export class ConversationOpenedHooks {
  private readonly hooks = new Map<string, ConversationOpenedHook>();

  /** Registers (or replaces) the hook of one module; hooks run in registration order. */
  register(name: string, hook: ConversationOpenedHook): void {
    this.hooks.set(name, hook);
  }

  unregister(name: string): void {
    this.hooks.delete(name);
  }

  /** Called by ConversationOpener, inside its transaction. */
  async run(conversation: OpenedConversation): Promise<void> {
    for (const hook of this.hooks.values()) await hook(conversation);
  }
}
