import { Injectable } from '@nestjs/common';
import type { AiConversationStatus } from './ai-conversation-state.entity';
import { AiConversationStatesRepository } from './ai-conversation-states.repository';

/**
 * Per-conversation AI state (DESIGN §14): a handoff keeps the AI silent on that conversation; a
 * flow's HANDOFF_AI hands it (back) to the AI agent, HANDOFF_HUMAN keeps the AI silent.
 * Joins the caller's transaction.
 */
@Injectable()
export class AiConversationStatesService {
  constructor(private readonly states: AiConversationStatesRepository) {}

  async statusOf(conversationId: string): Promise<AiConversationStatus> {
    return (await this.states.statusOf(conversationId)) ?? 'ACTIVE';
  }

  handToAi(conversationId: string): Promise<void> {
    return this.states.upsert(conversationId, { status: 'ACTIVE' });
  }

  handToHuman(conversationId: string): Promise<void> {
    return this.states.upsert(conversationId, { status: 'HUMAN' });
  }

  /** The AI agent gave up (no confident answer, a handoff keyword, an LLM failure). */
  handOff(conversationId: string, agentId: string | null, reason: string): Promise<void> {
    return this.states.upsert(conversationId, { status: 'HANDED_OFF', agentId, handoffReason: reason });
  }
}
