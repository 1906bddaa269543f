import { TransactionHost } from 'src/core/database/transaction-host';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import {
  InboundPipeline,
  type InboundStageContext,
  InboundStageOrder,
  type InboundStageResult,
} from 'src/modules/inbound';
import { withCause } from './automation-causation';
import { AutomationActionsService } from './automation-actions.service';
import { AutomationRunsRepository } from './automation-runs.repository';
import type { RunActionResult } from './automation.types';
import { type EvaluationSubject, flowTriggerMatches } from './evaluation.util';
import { RuleEngine } from './rule-engine.service';

/**
 * Flows (DESIGN §8, SPEC §1 step 5): the first active FLOW (by `order`) whose trigger matches the
 * inbound message — a button payload (POSTBACK), an ad click (AD_REFERRAL), a keyword — runs its
 * steps. A stage of the exclusive `reply` group: when a flow ran, it answers 'handled' and neither the
 * AI agent nor the suggested reply runs for that message. The run is logged like a rule's.
 */
@Injectable()
export class FlowEngine implements OnModuleInit {
  constructor(
    private readonly pipeline: InboundPipeline,
    private readonly rules: RuleEngine,
    private readonly actions: AutomationActionsService,
    private readonly runs: AutomationRunsRepository,
    private readonly tx: TransactionHost,
  ) {}

  onModuleInit(): void {
    this.pipeline.register({
      name: 'automations.flows',
      order: InboundStageOrder.Flow,
      group: 'reply',
      run: (context) => this.onMessage(context),
    });
  }

  async onMessage(context: InboundStageContext): Promise<InboundStageResult> {
    const snapshot = await this.rules.snapshotFor(context);
    if (snapshot.flows.length === 0) return 'continue';
    const message = { text: context.message.text, postbackPayload: context.message.postbackPayload };
    const flow = snapshot.flows.find((f) => flowTriggerMatches(f.trigger, message, context.referral));
    if (!flow) return 'continue';
    const started = performance.now();
    let subject: EvaluationSubject = {
      message: context.message as unknown as Record<string, unknown>,
      conversation: context.conversation as unknown as Record<string, unknown>,
      contact: { id: context.contact.id, name: context.contact.name },
    };
    const target = { conversationId: context.conversation.id, ticketId: null };
    const results: RunActionResult[] = [];
    await withCause(flow.id, async () => {
      for (const step of flow.actions) {
        try {
          const patch = await this.tx.savepoint(() => this.actions.run(step, target, subject));
          if (patch) subject = { ...subject, ...patch };
          results.push({ type: step.type, status: 'SUCCESS', error: null });
        } catch (error) {
          results.push({
            type: step.type,
            status: 'FAILED',
            error: (error instanceof Error ? error.message : String(error)).slice(0, 500),
          });
        }
      }
    });
    await this.runs.record([
      {
        automationId: flow.id,
        trigger: flow.trigger.type,
        conversationId: context.conversation.id,
        matched: true,
        status: results.some((r) => r.status === 'FAILED') ? 'FAILED' : 'SUCCESS',
        actions: results,
        durationMs: performance.now() - started,
      },
    ]);
    return 'handled';
  }
}
