import { Injectable, Logger } from '@nestjs/common';
import { type AgentSearchRow, renderItemForAgent } from 'src/modules/catalogue';
import type { AiProvider } from './ai-agent.entity';
import { type AgentAnswer, BuiltinAgent, handoffKeyword, priceText } from './builtin/builtin-agent';
import { parseQuestion } from './builtin/question';
import { type ChatMessage, LlmClient } from './llm/llm-client';
import { unknownPrices } from './llm/price-guard';

function customerTexts(turns: readonly Turn[]): string[] {
  return turns.filter((t) => t.role === 'customer').map((t) => t.text);
}

/** Turns of the conversation the LLM sees (issue 13: the last 20 messages). */
export const LLM_HISTORY = 20;

export interface Turn {
  readonly role: 'customer' | 'agent';
  readonly text: string;
}

/** What an agent needs to answer (an agent row, or defaults for a suggested reply). */
export interface AgentSettings {
  readonly id: string | null;
  readonly provider: AiProvider;
  readonly instructions: string;
  readonly useCatalog: boolean;
  readonly handoffKeywords: readonly string[];
  readonly model: string | null;
  readonly temperature: number;
}

export interface AgentRun extends AgentAnswer {
  /** The provider whose answer this is (BUILTIN when the LLM's answer was replaced). */
  readonly provider: AiProvider;
}

/**
 * One answer of an agent to the last customer turn. BUILTIN answers from the catalogue offline.
 * OPENAI_COMPATIBLE asks the LLM with the instructions, the last 20 turns and the items the built-in
 * matcher finds (rendered by the catalogue's one agent-text function); an LLM error or timeout, or a
 * price that is not the displayed price of an item given (price guard), falls back to the built-in
 * answer — or a handoff when that has none — and `reason` says why.
 */
@Injectable()
export class AiResponder {
  private readonly logger = new Logger('AiAgent');

  constructor(
    private readonly builtin: BuiltinAgent,
    private readonly llm: LlmClient,
  ) {}

  /**
   * `given`: the conversation so far, its last customer turn being the message to answer. With
   * `earlier`, `given` is that message alone and `earlier` reads the whole conversation (ending with
   * it) — BUILTIN calls it only when the message names no product; other providers always.
   */
  async respond(
    agent: AgentSettings,
    given: readonly Turn[],
    earlier?: () => Promise<readonly Turn[]>,
  ): Promise<AgentRun> {
    if (earlier && agent.provider === 'BUILTIN') {
      const [run] = await this.respondBuiltinMany([{ agent, message: customerTexts(given).at(-1) ?? '', earlier }]);
      return run!;
    }
    const turns = earlier ? await earlier() : given;
    const customer = customerTexts(turns);
    const message = customer[customer.length - 1] ?? '';
    const question = {
      message,
      previousCustomerMessages: customer.slice(0, -1),
      handoffKeywords: agent.handoffKeywords,
      useCatalog: agent.useCatalog,
    };
    if (agent.provider === 'BUILTIN') return { ...(await this.builtin.answer(question)), provider: 'BUILTIN' };

    const keyword = handoffKeyword(message, agent.handoffKeywords);
    if (keyword) return { ...(await this.builtin.answer(question)), provider: 'OPENAI_COMPATIBLE' };
    const fallback = async (reason: string): Promise<AgentRun> => {
      const answer = await this.builtin.answer(question);
      this.logger.warn({ agentId: agent.id, reason }, 'LLM answer replaced by the built-in answer');
      return { ...answer, provider: 'BUILTIN', reason: answer.reason ? `${reason}; ${answer.reason}` : reason };
    };
    if (!this.llm.configured) return fallback('provider_not_configured');

    const rows = agent.useCatalog ? await this.relevantItems(customer) : [];
    let text: string;
    try {
      text = await this.llm.chat(this.prompt(agent, turns, rows), {
        model: agent.model,
        temperature: agent.temperature,
      });
    } catch (error) {
      return fallback(`llm_error: ${(error as Error).message}`);
    }
    const invented = unknownPrices(
      text,
      rows.map((r) => priceText(r)).filter((p): p is string => p !== null),
    );
    if (invented.length)
      return fallback(`price_guard: ${invented.join(', ')} is not the displayed price of an item given`);
    const photo = parseQuestion(message).intents.includes('photo');
    const images = photo && rows[0]?.images[0] ? [{ url: rows[0].images[0], caption: rows[0].name }] : [];
    return {
      text,
      items: rows.map((r) => r.id),
      images,
      handoff: false,
      reason: null,
      rows,
      provider: 'OPENAI_COMPATIBLE',
    };
  }

  /**
   * BUILTIN answers to several customer messages (a pipeline group's, issue 16 item 3) with one
   * catalogue search for all: each as `respond(agent, [message], earlier)` gives it alone. `earlier`
   * reads the whole conversation, ending with the message; it is called only for a message that
   * names no product.
   */
  async respondBuiltinMany(
    list: readonly { agent: AgentSettings; message: string; earlier: () => Promise<readonly Turn[]> }[],
  ): Promise<AgentRun[]> {
    const answers = await this.builtin.answerMany(
      list.map(({ agent, message, earlier }) => ({
        message,
        previousCustomerMessages: async () => customerTexts(await earlier()).slice(0, -1),
        handoffKeywords: agent.handoffKeywords,
        useCatalog: agent.useCatalog,
      })),
    );
    return answers.map((answer) => ({ ...answer, provider: 'BUILTIN' }));
  }

  /** The items the customer's last message (or, failing that, an earlier one) is about. */
  private async relevantItems(customerMessages: readonly string[]): Promise<AgentSearchRow[]> {
    for (const text of [...customerMessages].reverse().slice(0, 4)) {
      const found = await this.builtin.findItems(parseQuestion(text));
      if (found.items.length) return found.items;
    }
    return [];
  }

  /** System prompt (instructions + items as the agent reads them) and the last 20 turns. */
  prompt(
    agent: Pick<AgentSettings, 'instructions'>,
    turns: readonly Turn[],
    rows: readonly AgentSearchRow[],
  ): ChatMessage[] {
    const catalogue = rows.length
      ? `Catalogue items relevant to the conversation:\n\n${rows.map((r) => renderItemForAgent(r)).join('\n\n')}`
      : 'No catalogue item matches the conversation.';
    const system = [
      agent.instructions.trim() || 'You are a helpful shop assistant.',
      'Quote prices exactly as written in the catalogue below, with their currency; never give a price that is not there. ' +
        'Say "out of stock" when an item is out of stock. If you cannot answer, say a colleague will follow up.',
      catalogue,
    ].join('\n\n');
    return [
      { role: 'system', content: system },
      ...turns.slice(-LLM_HISTORY).map((t): ChatMessage => ({
        role: t.role === 'customer' ? 'user' : 'assistant',
        content: t.text,
      })),
    ];
  }
}
