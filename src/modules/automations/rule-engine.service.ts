import { TransactionHost } from 'src/core/database/transaction-host';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { type DomainEvent, EventBus } from 'src/core/events/event-bus';
import { SYSTEM_ACTOR, getTenantContext, runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { ContactsService } from 'src/modules/contacts';
import { InboundPipeline, type InboundStageContext, InboundStageOrder } from 'src/modules/inbound';
import { ConversationsService } from 'src/modules/inbox';
import { TicketsService } from 'src/modules/tickets';
import { type AutomationSnapshot, AutomationCache } from './automation-cache.service';
import { MAX_CHAIN_DEPTH, currentCausation, withCause } from './automation-causation';
import { type ActionTarget, AutomationActionsService } from './automation-actions.service';
import { AutomationRunLog } from './automation-run-log.service';
import type { NewRun, SkippedRuns } from './automation-runs.repository';
import { type ActiveAutomation, RULE_TRIGGERS, type RunActionResult, type RuleTrigger } from './automation.types';
import { type CompiledConditions, type EvaluationSubject, compileConditions } from './evaluation.util';

/** One trigger of one event, as the engine evaluates it. */
interface TriggerInput {
  readonly trigger: RuleTrigger;
  readonly subject: EvaluationSubject;
  readonly target: ActionTarget;
  /** The contact to load when a rule reads more of it than id and name. */
  readonly contactId: string | null;
  /** The conversation to load when a ticket rule reads it. */
  readonly loadConversationId: string | null;
}

/** How long the pipeline's claim on its own events is remembered (events reach listeners within it). */
const CLAIM_TTL_MS = 10 * 60_000;
const MAX_CLAIMS = 50_000;

/**
 * The RULE engine (DESIGN §8, SPEC §1 step 4). It hears the five rule triggers on the EventBus from
 * wherever they happen (API, timers, other automations). Events of the inbound pipeline are handled
 * by its stage instead (InboundStageOrder.Automations, after the automatic ticket): a stage below 100
 * claims the pipeline's `conversation.created` / `message.received` before they are published, so the
 * listener leaves them to the stage and nothing runs twice.
 *
 * Per event: the cached snapshot (no statement while cross-process invalidation is up), the rules
 * of its trigger in `order`, conditions evaluated in memory, the matching rules' actions one by one
 * (a failure is recorded, the next still runs; in a transaction each action has its own savepoint),
 * then the matched runs in ONE statement in the event's transaction and the SKIPPED ones after its
 * commit, batched with other events' (AutomationRunLog). No rule matching: no statement at all.
 */
@Injectable()
export class RuleEngine implements OnModuleInit {
  private readonly logger = new Logger('RuleEngine');
  private readonly claims = new Map<string, number>();
  /** The snapshot an inbound event already read (stage 200 and the flow stage share it). */
  readonly snapshots = new WeakMap<InboundStageContext, AutomationSnapshot>();

  constructor(
    private readonly bus: EventBus,
    private readonly pipeline: InboundPipeline,
    private readonly cache: AutomationCache,
    private readonly actions: AutomationActionsService,
    private readonly runLog: AutomationRunLog,
    private readonly tx: TransactionHost,
    private readonly contacts: ContactsService,
    private readonly conversations: ConversationsService,
    private readonly tickets: TicketsService,
  ) {}

  onModuleInit(): void {
    this.pipeline.register({
      name: 'automations.claim',
      order: InboundStageOrder.Ticket - 10,
      run: async (context) => {
        if (context.conversationCreated) this.claim(`conversation.created:${context.conversation.id}`);
        this.claim(`message.received:${context.message.id}`);
      },
    });
    this.pipeline.register({
      name: 'automations.rules',
      order: InboundStageOrder.Automations,
      run: async (context) => {
        await this.onInbound(context);
      },
    });
    for (const trigger of RULE_TRIGGERS) {
      this.bus.subscribe(trigger, (event) => this.onEvent(event));
    }
  }

  /** The snapshot for this inbound event (read once, shared with the flow stage). */
  async snapshotFor(context: InboundStageContext): Promise<AutomationSnapshot> {
    const known = this.snapshots.get(context);
    if (known) return known;
    const snapshot = await this.cache.current();
    this.snapshots.set(context, snapshot);
    return snapshot;
  }

  /** Stage 200: `conversation.created` (new conversations) then `message.received`, in one run log write. */
  async onInbound(context: InboundStageContext): Promise<void> {
    const snapshot = await this.snapshotFor(context);
    if (snapshot.rules.size === 0) return;
    const conversation = context.conversation as unknown as Record<string, unknown>;
    const contact = { id: context.contact.id, name: context.contact.name };
    const target: ActionTarget = { conversationId: context.conversation.id, ticketId: null };
    const inputs: TriggerInput[] = [];
    if (context.conversationCreated) {
      inputs.push({
        trigger: 'conversation.created',
        subject: { conversation, contact },
        target,
        contactId: contact.id,
        loadConversationId: null,
      });
    }
    inputs.push({
      trigger: 'message.received',
      subject: { message: context.message as unknown as Record<string, unknown>, conversation, contact },
      target,
      contactId: contact.id,
      loadConversationId: null,
    });
    await this.evaluate(snapshot, inputs);
  }

  /** A rule trigger published elsewhere (API, timers, other automations' actions). */
  async onEvent(event: DomainEvent): Promise<void> {
    const input = this.inputOf(event);
    if (!input) return;
    if (currentCausation().chain.length >= MAX_CHAIN_DEPTH) return;
    await runAsWorkspace(
      event.workspaceId,
      async () => {
        const snapshot = await this.cache.current();
        if (!snapshot.rules.get(input.trigger)?.length) return;
        await this.evaluate(snapshot, [input]);
      },
      SYSTEM_ACTOR,
    );
  }

  private inputOf(event: DomainEvent): TriggerInput | null {
    const data = event.data;
    const record = (v: unknown): Record<string, unknown> | null =>
      v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
    switch (event.name) {
      case 'conversation.created':
      case 'conversation.resolved':
      case 'message.received': {
        const conversation = record(data.conversation);
        const conversationId = str(conversation?.id) ?? str(data.conversationId);
        if (!conversationId) return null;
        if (event.name !== 'conversation.resolved') {
          const message = record(data.message);
          const key =
            event.name === 'message.received'
              ? `message.received:${str(message?.id)}`
              : `conversation.created:${conversationId}`;
          if (this.isClaimed(key)) return null;
        }
        const contact = record(data.contact) ?? record(conversation?.contact);
        const contactId = str(contact?.id) ?? str(conversation?.contactId);
        return {
          trigger: event.name,
          subject: {
            ...(record(data.message) ? { message: record(data.message) } : {}),
            conversation,
            contact: contact ? { id: contactId, name: contact.name ?? null } : null,
          },
          target: { conversationId, ticketId: null },
          contactId,
          loadConversationId: conversation ? null : conversationId,
        };
      }
      case 'ticket.created':
      case 'ticket.updated': {
        const ticket = record(data.ticket);
        const ticketId = str(ticket?.id);
        if (!ticket || !ticketId) return null;
        const conversationId = str(ticket.conversationId);
        return {
          trigger: event.name,
          subject: { ticket },
          target: { conversationId, ticketId },
          contactId: str(ticket.contactId),
          loadConversationId: conversationId,
        };
      }
      default:
        return null;
    }
  }

  /** Evaluates the triggers of one event and writes all their runs in one statement. */
  private async evaluate(snapshot: AutomationSnapshot, inputs: readonly TriggerInput[]): Promise<void> {
    const chain = currentCausation().chain;
    if (chain.length >= MAX_CHAIN_DEPTH) return;
    const runs: NewRun[] = [];
    const skipped: SkippedRuns[] = [];
    for (const input of inputs) {
      const rules = snapshot.rules.get(input.trigger) ?? [];
      const candidates = chain.length ? rules.filter((a) => !chain.includes(a.id)) : rules;
      if (candidates.length === 0) continue;
      let subject = await this.enrich(input, candidates);
      const notMatched: string[] = [];
      skipped.push({
        automationIds: notMatched,
        trigger: input.trigger,
        conversationId: input.target.conversationId,
        at: new Date(),
      });
      for (const automation of candidates) {
        const started = performance.now();
        if (!matcherOf(automation)(subject)) {
          notMatched.push(automation.id);
          continue;
        }
        const results: RunActionResult[] = [];
        await withCause(automation.id, async () => {
          for (const action of automation.actions) {
            try {
              const patch = await this.tx.savepoint(() => this.actions.run(action, input.target, subject));
              if (patch) subject = { ...subject, ...patch };
              results.push({ type: action.type, status: 'SUCCESS', error: null });
            } catch (error) {
              results.push({ type: action.type, status: 'FAILED', error: errorText(error) });
            }
          }
        });
        runs.push(this.matchedRun(automation, input, results, started));
      }
    }
    await this.runLog.record(runs, skipped);
  }

  private matchedRun(
    automation: ActiveAutomation,
    input: TriggerInput,
    actions: RunActionResult[],
    started: number,
  ): NewRun {
    return {
      automationId: automation.id,
      trigger: input.trigger,
      conversationId: input.target.conversationId,
      matched: true,
      status: actions.some((a) => a.status === 'FAILED') ? 'FAILED' : 'SUCCESS',
      actions,
      durationMs: performance.now() - started,
    };
  }

  /** Loads what the candidate rules read beyond the event's own data (the contact's fields, a ticket's conversation). */
  private async enrich(input: TriggerInput, candidates: readonly ActiveAutomation[]): Promise<EvaluationSubject> {
    let subject = input.subject;
    const reads = readsOfAll(candidates);
    const ctx = getTenantContext();
    if (input.loadConversationId && !subject.conversation && reads.conversation) {
      try {
        const entity = await this.conversations.getVisible(ctx, input.loadConversationId);
        subject = {
          ...subject,
          conversation: (await this.conversations.toResponse(entity)) as unknown as Record<string, unknown>,
        };
      } catch (error) {
        this.logger.warn({ err: error }, 'The conversation of a rule event could not be read');
      }
    }
    // `{{ticket.key}}` on a conversation trigger: the conversation's newest ticket (e.g. the automatic one).
    if (!subject.ticket && input.target.conversationId && reads.ticket) {
      const page = await this.tickets.list(ctx, { conversationId: input.target.conversationId, limit: 1 });
      const ticket = page.data[0];
      if (ticket) subject = { ...subject, ticket: ticket as unknown as Record<string, unknown> };
    }
    const contactKnown = subject.contact && 'customFields' in subject.contact;
    if (input.contactId && !contactKnown && (reads.contactBeyondName || (!subject.contact && reads.contact))) {
      try {
        const contact = await this.contacts.get(ctx, input.contactId);
        subject = { ...subject, contact: contact as unknown as Record<string, unknown> };
      } catch (error) {
        this.logger.warn({ err: error }, 'The contact of a rule event could not be read');
      }
    }
    return subject;
  }

  private claim(key: string): void {
    const now = Date.now();
    this.claims.set(key, now + CLAIM_TTL_MS);
    if (this.claims.size > MAX_CLAIMS) {
      for (const [k, expires] of this.claims) {
        if (expires < now || this.claims.size > MAX_CLAIMS) this.claims.delete(k);
        else break;
      }
    }
  }

  private isClaimed(key: string): boolean {
    const expires = this.claims.get(key);
    return expires !== undefined && expires >= Date.now();
  }
}

/** The subject paths an automation reads: its condition fields and its placeholders (memoised). */
const readsCache = new WeakMap<ActiveAutomation, string[]>();
export function readsOf(automation: ActiveAutomation): string[] {
  const known = readsCache.get(automation);
  if (known) return known;
  const paths = [...automation.conditions.all, ...automation.conditions.any].map((c) => c.field);
  const json = JSON.stringify(automation.actions);
  for (const match of json.matchAll(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g)) paths.push(match[1] as string);
  readsCache.set(automation, paths);
  return paths;
}

/** Each cached rule's conditions, compiled once (the snapshot's objects live until the rules change). */
const matchers = new WeakMap<ActiveAutomation, CompiledConditions>();
function matcherOf(automation: ActiveAutomation): CompiledConditions {
  let matcher = matchers.get(automation);
  if (!matcher) {
    matcher = compileConditions(automation.conditions);
    matchers.set(automation, matcher);
  }
  return matcher;
}

/** What a list of rules reads beyond the event's own data (memoised per cached list). */
interface ListReads {
  readonly conversation: boolean;
  readonly ticket: boolean;
  readonly contact: boolean;
  /** A contact field other than id and name (the event carries only those). */
  readonly contactBeyondName: boolean;
}
const listReadsCache = new WeakMap<readonly ActiveAutomation[], ListReads>();
function readsOfAll(list: readonly ActiveAutomation[]): ListReads {
  const known = listReadsCache.get(list);
  if (known) return known;
  const paths = list.flatMap((a) => readsOf(a));
  const reads: ListReads = {
    conversation: paths.some((p) => p.startsWith('conversation.')),
    ticket: paths.some((p) => p.startsWith('ticket.')),
    contact: paths.some((p) => p.startsWith('contact.')),
    contactBeyondName: paths.some((p) => p.startsWith('contact.') && p !== 'contact.id' && p !== 'contact.name'),
  };
  listReadsCache.set(list, reads);
  return reads;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message.slice(0, 500);
  return String(error).slice(0, 500);
}
