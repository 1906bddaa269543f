import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { CacheInvalidation, TopicCache } from 'src/core/events/cache-invalidation';
import { AppException } from 'src/core/errors/app.exception';
import { JobName } from 'src/core/queue/job-names';
import { JOB_QUEUE, type JobPayload, type JobQueue } from 'src/core/queue/job-queue.port';
import { type TenantContext, getTenantContext } from 'src/core/tenancy/tenant-context';
import { CatalogAgentSearch } from 'src/modules/catalogue';
import { InboundPipeline, type InboundStageContext, InboundStageOrder } from 'src/modules/inbound';
import {
  ConversationsService,
  type HeldConversation,
  type MessageResponse,
  MessagesService,
  type ReplyTo,
} from 'src/modules/inbox';
import type { AiAgentEntity } from './ai-agent.entity';
import { AiAgentsRepository } from './ai-agents.repository';
import { AiConversationStatesService } from './ai-conversation-states.service';
import { type AgentRun, type AgentSettings, AiResponder, type Turn } from './ai-responder.service';
import type { AiReplyDto, AiReplyResponse, TranslateDto, TranslateResponse } from './dto/ai-agent.dto';
import { LlmClient } from './llm/llm-client';

export interface AiAgentReplyJobData extends JobPayload {
  readonly conversationId: string;
  readonly messageId: string;
  /** Null: draft a suggested reply (no agent answers this conversation). */
  readonly agentId: string | null;
}

/** An AI reply's sender. */
const AI_SENDER = { type: 'AI' as const, id: null };

/** The key of a transaction's deferred BUILTIN questions (TransactionHost.beforeCommit). */
const BUILTIN_QUESTIONS = {};

/** A message the BUILTIN agent answers when its transaction's questions are answered together. */
interface PendingQuestion {
  readonly workspaceId: string;
  readonly agent: AiAgentEntity;
  readonly conversation: HeldConversation;
  /** The customer's message (a text turn). */
  readonly message: string;
}

/** What drafts a suggested reply when no agent answers: the catalogue, no handoff keywords. */
const SUGGESTION_SETTINGS = {
  id: null,
  instructions: 'You help a human support agent: draft a short, friendly reply to the customer.',
  useCatalog: true,
  handoffKeywords: [],
  model: null,
  temperature: 0.3,
} as const;

/**
 * The AI agent in conversations (SPEC §1 step 5, DESIGN §9, §14):
 *
 * - stage 410 (`reply` group): the active agent for the channel answers when no flow did. BUILTIN
 *   answers inside the event's transaction (database only); an LLM agent's answer is a job after
 *   commit. Replies are OUTBOUND messages with `senderType AI` sent through the inbox (channel
 *   adapter, first-response stamp). No confident answer → handoff: `handoffMessage` once, the state
 *   says HANDED_OFF (with its time: analytics counts it), the AI stays silent, assignment untouched.
 * - stage 420: otherwise a suggested reply is drafted (`suggestedReply`), never sent by itself.
 * - `ai-reply` and `translate` for human agents.
 */
@Injectable()
export class AiConversationsService implements OnModuleInit {
  private readonly logger = new Logger('AiAgent');
  /** Per workspace and channel: the active agent answering there (most channels have none). */
  private readonly agentByChannel: TopicCache<{ readonly agent: AiAgentEntity | null }>;

  constructor(
    private readonly pipeline: InboundPipeline,
    private readonly tx: TransactionHost,
    private readonly agents: AiAgentsRepository,
    private readonly states: AiConversationStatesService,
    private readonly responder: AiResponder,
    private readonly llm: LlmClient,
    private readonly conversations: ConversationsService,
    private readonly messages: MessagesService,
    private readonly catalogue: CatalogAgentSearch,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    invalidation: CacheInvalidation,
  ) {
    this.agentByChannel = new TopicCache(invalidation, 'ai-agents');
  }

  onModuleInit(): void {
    this.pipeline.register({
      name: 'ai-agents.reply',
      order: InboundStageOrder.AiAgent,
      group: 'reply',
      run: (context) => this.agentStage(context),
    });
    this.pipeline.register({
      name: 'ai-agents.suggested-reply',
      order: InboundStageOrder.SuggestedReply,
      group: 'reply',
      run: (context) => this.suggestionStage(context),
    });
  }

  /**
   * The active agent answering on a channel of the caller's workspace (none: null), from memory while
   * cross-process invalidation is up: every agent write tells every process at commit.
   */
  async activeAgentFor(channelId: string): Promise<AiAgentEntity | null> {
    const workspaceId = getTenantContext().workspaceId;
    const cached = await this.agentByChannel.get(`${workspaceId}:${channelId}`, async () => ({
      agent: await this.agents.findActiveForChannel(channelId),
    }));
    return cached.agent;
  }

  /**
   * Stage 410. Per message: the channel's agent from memory, the conversation's AI state (one
   * unique-key read, then from memory; none for a conversation this event created: nothing can have
   * handed it off yet, and it is remembered as ACTIVE for its next message), then the answer. BUILTIN reads the conversation's earlier messages only when this message
   * names no product ("how much is it?"); a question that does is answered from itself.
   */
  private async agentStage(context: InboundStageContext): Promise<'handled' | 'continue'> {
    if (!context.message.text?.trim()) return 'continue';
    const agent = await this.activeAgentFor(context.channel.id);
    if (!agent) return 'continue';
    if (context.conversationCreated) this.states.rememberNew(context.conversation.id);
    else if ((await this.states.statusOf(context.conversation.id)) !== 'ACTIVE') return 'continue';
    if (agent.provider === 'BUILTIN') {
      const { id, channelId } = context.conversation;
      const own = toTurns([context.message]);
      if (own.length) {
        await this.answerBeforeCommit({
          workspaceId: context.workspaceId,
          agent,
          conversation: { id, channelId },
          message: own[0]!.text,
        });
      } else {
        // an image's caption is not a turn: the conversation's last text message is answered, as it reads
        await this.deliver(
          agent,
          { id, channelId },
          await this.responder.respond(settingsOf(agent), await this.turns(id)),
        );
      }
      return 'handled';
    }
    await this.enqueue(context, agent.id);
    return 'handled';
  }

  /**
   * A BUILTIN answer deferred to the end of the transaction (issue 16 item 3): the questions of a
   * pipeline group are answered together — one catalogue search for all, one statement for all the
   * plain replies and their conversations' stamps — just before COMMIT, or between the group's
   * rounds (InboundEventRunner: a sender's next message is stored after this answer). A conversation
   * already waiting for an answer, or another workspace, has what is pending answered first (a
   * conversation's answers stay in order and each sees the AI state the previous one left).
   */
  private async answerBeforeCommit(question: PendingQuestion): Promise<void> {
    const pending = () =>
      this.tx.beforeCommit(
        BUILTIN_QUESTIONS,
        () => [] as PendingQuestion[],
        (list) => this.answerPending(list),
      );
    let list = pending();
    if (list?.some((q) => q.conversation.id === question.conversation.id || q.workspaceId !== question.workspaceId)) {
      await this.tx.flushPending();
      list = pending();
    }
    if (list) list.push(question);
    else await this.answerPending([question]);
  }

  /** The deferred questions of one workspace (the caller's): answered, replies stored, handoffs made. */
  private async answerPending(list: readonly PendingQuestion[]): Promise<void> {
    if (list.length === 0) return;
    const workspaceId = getTenantContext().workspaceId;
    if (list.some((q) => q.workspaceId !== workspaceId)) throw new Error('AI questions answered in another workspace');
    const runs = await this.responder.respondBuiltinMany(
      list.map((q) => ({
        agent: settingsOf(q.agent),
        message: q.message,
        earlier: () => this.turns(q.conversation.id),
      })),
    );
    const plain = list.flatMap((q, i) => {
      const run = runs[i]!;
      return !run.handoff && !run.reason && run.images.length === 0 && run.text.trim() ? [{ q, run }] : [];
    });
    await this.messages.sendReplies(
      plain.map(({ q, run }) => ({ to: q.conversation, reply: { text: run.text }, sender: AI_SENDER })),
    );
    for (const [i, q] of list.entries()) {
      if (!plain.some((p) => p.q === q)) await this.deliver(q.agent, q.conversation, runs[i]!);
    }
  }

  private async suggestionStage(context: InboundStageContext): Promise<'handled' | 'continue'> {
    if (!context.message.text?.trim()) return 'continue';
    if (this.llm.configured) {
      await this.enqueue(context, null);
      return 'handled';
    }
    // Earlier messages only serve the built-in answer to find the product a question refers to: with
    // nothing on sale (most workspaces) there is none, and its answer depends on this message alone
    // (small talk gets the greeting, anything else nothing) — no read of the conversation's messages.
    // (An image's caption is not a turn: then the last text message is read as before.)
    const own = toTurns([context.message]);
    const turns =
      own.length && !(await this.catalogue.hasItemsOnSale()) ? own : await this.turns(context.conversation.id);
    const run = await this.responder.respond({ ...SUGGESTION_SETTINGS, provider: 'BUILTIN' }, turns);
    await this.suggest(context.conversation.id, run);
    return 'handled';
  }

  private async enqueue(context: InboundStageContext, agentId: string | null): Promise<void> {
    const data: AiAgentReplyJobData = {
      workspaceId: context.workspaceId,
      conversationId: context.conversation.id,
      messageId: context.message.id,
      agentId,
    };
    await this.tx.afterCommit(() =>
      this.jobs.enqueue(JobName.AiAgentReply, data, {
        jobId: `ai-reply:${context.message.id}`,
        attempts: 2,
        backoffMs: [5_000],
      }),
    );
  }

  /**
   * The job: the LLM's answer (slow, outside any transaction), then delivered in one transaction.
   *
   * The message it answers was stored by the pipeline's asynchronous commit (issue 16): flushed
   * first (`ensureDurable`), before the LLM sees the conversation; a message no longer there was
   * lost with a database crash, and the re-run of its event queues a job of its own.
   */
  async runJob(data: AiAgentReplyJobData): Promise<'sent' | 'handed_off' | 'suggested' | 'skipped'> {
    await this.tx.ensureDurable();
    const texts = await this.messages.latestTexts(data.conversationId);
    if (!texts.some((m) => m.id === data.messageId)) return 'skipped';
    if (data.agentId === null) {
      const run = await this.responder.respond(
        { ...SUGGESTION_SETTINGS, provider: 'OPENAI_COMPATIBLE' },
        toTurns(texts),
      );
      await this.tx.run(() => this.suggest(data.conversationId, run));
      return 'suggested';
    }
    const agent = await this.agents.findById(data.agentId);
    if (!agent?.active || (await this.states.statusOf(data.conversationId)) !== 'ACTIVE') return 'skipped';
    const run = await this.responder.respond(settingsOf(agent), toTurns(texts));
    return this.tx.run(async () => {
      // A flow or a human may have taken over while the LLM was thinking.
      if ((await this.states.committedStatusOf(data.conversationId)) !== 'ACTIVE') return 'skipped';
      await this.deliver(agent, data.conversationId, run);
      return run.handoff ? 'handed_off' : 'sent';
    });
  }

  /** Sends the answer (text, then images) as AI replies, or hands off (its message once). */
  private async deliver(agent: AiAgentEntity, conversation: ReplyTo, run: AgentRun): Promise<void> {
    const sender = AI_SENDER;
    const conversationId = typeof conversation === 'string' ? conversation : conversation.id;
    if (run.handoff) {
      await this.states.handOff(conversationId, agent.id, run.reason ?? 'no confident answer');
      if (agent.handoffMessage?.trim()) {
        await this.messages.sendReply(conversation, { text: agent.handoffMessage.trim() }, sender);
      }
      return;
    }
    if (run.reason) this.logger.log({ conversationId, agentId: agent.id, reason: run.reason }, 'AI answer fallback');
    if (run.text.trim()) await this.messages.sendReply(conversation, { text: run.text }, sender);
    for (const image of run.images) {
      await this.messages.sendReply(conversation, { imageUrl: image.url, text: image.caption }, sender);
    }
  }

  private async suggest(conversationId: string, run: AgentRun): Promise<void> {
    if (run.handoff || !run.text.trim()) return;
    await this.conversations.setSuggestedReply(conversationId, {
      text: run.text,
      items: run.items,
      createdAt: new Date().toISOString(),
    });
  }

  /**
   * The conversation's text messages as turns, oldest first (of the latest 100, as its detail shows
   * them). Called by the pipeline stages and the job, which act for the system on a conversation they
   * already have: one read of the messages' texts, no conversation / notes / contact re-read.
   */
  private async turns(conversationId: string): Promise<Turn[]> {
    return toTurns(await this.messages.latestTexts(conversationId));
  }

  /** `POST /conversations/:id/ai-reply {send?}`: a draft from the workspace's agent for the channel (or built-in). */
  async aiReply(ctx: TenantContext, conversationId: string, dto: AiReplyDto): Promise<AiReplyResponse> {
    const conversation = await this.conversations.getVisible(ctx, conversationId);
    const detail = await this.conversations.detail(conversation);
    const agent = await this.agents.findActiveForChannel(conversation.channelId);
    const settings: AgentSettings = agent
      ? { ...settingsOf(agent), handoffKeywords: [] }
      : { ...SUGGESTION_SETTINGS, provider: this.llm.configured ? 'OPENAI_COMPATIBLE' : 'BUILTIN' };
    const run = await this.responder.respond(settings, toTurns(detail.messages));
    if (!run.text.trim()) {
      return { text: '', items: [], sent: false };
    }
    if (!dto.send) return { text: run.text, items: run.items, sent: false };
    const message = await this.tx.run(async () => {
      const sent = await this.messages.sendReply(conversation.id, { text: run.text }, { type: 'AI', id: null });
      for (const image of run.images) {
        await this.messages.sendReply(
          conversation.id,
          { imageUrl: image.url, text: image.caption },
          { type: 'AI', id: null },
        );
      }
      await this.conversations.setSuggestedReply(conversation.id, null);
      return sent;
    });
    return { text: run.text, items: run.items, sent: true, messageId: message.id };
  }

  /** `POST /conversations/:id/translate`: through the LLM (503 `provider_not_configured` without one). */
  async translate(ctx: TenantContext, conversationId: string, dto: TranslateDto): Promise<TranslateResponse> {
    const conversation = await this.conversations.getVisible(ctx, conversationId);
    let source = dto.text;
    if (dto.messageId !== undefined) {
      const detail = await this.conversations.detail(conversation);
      const message = detail.messages.find((m) => m.id === dto.messageId);
      if (!message) throw AppException.notFound('Message');
      if (!message.text?.trim()) throw AppException.field('messageId', 'names a message without text');
      source = message.text;
    }
    this.llm.requireConfigured();
    const answer = await this.llm.chat(
      [
        {
          role: 'system',
          content:
            `Translate the user's text into ${dto.targetLanguage}. Answer with JSON only: ` +
            '{"sourceLanguage": "<ISO 639-1 code of the original>", "text": "<the translation>"}.',
        },
        { role: 'user', content: source ?? '' },
      ],
      { temperature: 0 },
    );
    const parsed = parseTranslation(answer);
    return {
      text: parsed.text,
      ...(parsed.sourceLanguage ? { sourceLanguage: parsed.sourceLanguage } : {}),
      targetLanguage: dto.targetLanguage,
    };
  }
}

function settingsOf(agent: AiAgentEntity): AgentSettings {
  return {
    id: agent.id,
    provider: agent.provider,
    instructions: agent.instructions,
    useCatalog: agent.useCatalog,
    handoffKeywords: agent.handoffKeywords,
    model: agent.model,
    temperature: agent.temperature,
  };
}

export function toTurns(messages: readonly Pick<MessageResponse, 'direction' | 'type' | 'text'>[]): Turn[] {
  return messages
    .filter((m) => m.text?.trim() && m.type !== 'IMAGE')
    .map((m) => ({ role: m.direction === 'INBOUND' ? 'customer' : 'agent', text: m.text ?? '' }));
}

/** The model was asked for JSON; a model that answered with plain text still gives the translation. */
function parseTranslation(answer: string): { text: string; sourceLanguage: string | null } {
  const json = answer.match(/\{[\s\S]*\}/)?.[0];
  if (json) {
    try {
      const value = JSON.parse(json) as { text?: unknown; sourceLanguage?: unknown };
      if (typeof value.text === 'string') {
        return {
          text: value.text,
          sourceLanguage:
            typeof value.sourceLanguage === 'string' && value.sourceLanguage ? value.sourceLanguage : null,
        };
      }
    } catch {
      // not JSON after all: the answer is the translation
    }
  }
  return { text: answer, sourceLanguage: null };
}
