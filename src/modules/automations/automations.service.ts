import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException, type ErrorDetail } from 'src/core/errors/app.exception';
import type { Page } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { automationsMeta } from './automation-definitions';
import { AutomationActionsService } from './automation-actions.service';
import type { AutomationEntity } from './automation.entity';
import type { AutomationRunEntity } from './automation-run.entity';
import { AutomationRunsRepository } from './automation-runs.repository';
import { type ValidatedDefinition, validateDefinition } from './automation-validator';
import type { FlowTrigger } from './automation.types';
import { AutomationsRepository } from './automations.repository';
import type {
  AutomationResponse,
  AutomationRunResponse,
  AutomationTestResponse,
  CreateAutomationDto,
  ListAutomationsQuery,
  ListRunsQuery,
  UpdateAutomationDto,
} from './dto/automation.dto';
import { type EvaluationSubject, evaluateConditions, flowTriggerMatches } from './evaluation.util';

/** Automations CRUD, the meta document, `/test` (a dry run) and the run log (DESIGN §8). */
@Injectable()
export class AutomationsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly automations: AutomationsRepository,
    private readonly runs: AutomationRunsRepository,
    private readonly actions: AutomationActionsService,
  ) {}

  meta() {
    return automationsMeta();
  }

  async list(_ctx: TenantContext, query: ListAutomationsQuery): Promise<Page<AutomationResponse>> {
    const page = await this.automations.findPage({ kind: query.kind, active: query.active }, query);
    return { data: page.data.map(toResponse), nextCursor: page.nextCursor };
  }

  async get(_ctx: TenantContext, id: string): Promise<AutomationResponse> {
    return toResponse(await this.automations.getById(id));
  }

  async create(_ctx: TenantContext, dto: CreateAutomationDto): Promise<AutomationResponse> {
    return this.tx.run(async () => {
      const definition = await this.validated(dto, null);
      const created = await this.automations.insert({
        name: dto.name,
        active: dto.active ?? true,
        kind: dto.kind,
        trigger: definition.trigger,
        conditions: definition.conditions,
        actions: definition.actions,
        order: dto.order ?? 0,
        runCount: 0,
        lastRunAt: null,
      });
      await this.automations.bumpVersion();
      return toResponse(created);
    });
  }

  async update(_ctx: TenantContext, id: string, dto: UpdateAutomationDto): Promise<AutomationResponse> {
    return this.tx.run(async () => {
      const current = await this.automations.getById(id);
      const definition = await this.validated(dto, current.id);
      const updated = await this.automations.updateById(current.id, {
        name: dto.name,
        active: dto.active ?? current.active,
        kind: dto.kind,
        trigger: definition.trigger,
        conditions: definition.conditions,
        actions: definition.actions,
        order: dto.order ?? current.order,
        updatedAt: new Date(),
      });
      await this.automations.bumpVersion();
      return toResponse(updated);
    });
  }

  async remove(_ctx: TenantContext, id: string): Promise<void> {
    await this.tx.run(async () => {
      await this.automations.deleteById(id);
      await this.runs.deleteOf(id);
      await this.automations.bumpVersion();
    });
  }

  async listRuns(_ctx: TenantContext, query: ListRunsQuery): Promise<Page<AutomationRunResponse>> {
    if (query.from && query.to && Date.parse(query.from) >= Date.parse(query.to)) {
      throw AppException.field('from', 'must be before to');
    }
    const page = await this.runs.findPage(
      { automationId: query.automationId, status: query.status, from: query.from, to: query.to },
      query,
    );
    return { data: page.data.map(toRunResponse), nextCursor: page.nextCursor };
  }

  /**
   * A dry run on a sample: which conditions pass (with the value each read) and what would be done,
   * placeholders rendered. Reads only the automation; writes nothing, sends nothing, logs no run.
   */
  async test(_ctx: TenantContext, id: string, sample: Record<string, unknown>): Promise<AutomationTestResponse> {
    const automation = await this.automations.getById(id);
    const subject = sampleSubject(sample);
    let matched: boolean;
    let conditions: AutomationTestResponse['conditions'] = [];
    if (automation.kind === 'FLOW') {
      const message = subject.message ?? {};
      const referral = record(sample.referral) ?? record(message.referral);
      matched = flowTriggerMatches(
        automation.trigger as FlowTrigger,
        {
          text: typeof message.text === 'string' ? message.text : null,
          postbackPayload: typeof message.postbackPayload === 'string' ? message.postbackPayload : null,
        },
        referral ? { adId: typeof referral.adId === 'string' ? referral.adId : null } : null,
      );
    } else {
      const result = evaluateConditions(
        { all: automation.conditions.all ?? [], any: automation.conditions.any ?? [] },
        subject,
      );
      matched = result.matched;
      conditions = result.outcomes;
    }
    return {
      matched,
      conditions,
      actions: matched ? automation.actions.map((a) => this.actions.plan(a, subject)) : [],
    };
  }

  /** Registry checks, then the references in one query: queues, members, offered button payloads. */
  private async validated(dto: CreateAutomationDto, automationId: string | null): Promise<ValidatedDefinition> {
    const { value, errors } = validateDefinition({
      kind: dto.kind,
      trigger: dto.trigger,
      conditions: dto.conditions,
      actions: dto.actions,
    });
    if (!value) throw invalid(errors);
    const { refs } = value;
    const found = await this.automations.existingRefs(
      [...new Set(refs.queues.map((r) => r.id))],
      [...new Set(refs.users.map((r) => r.id))],
    );
    const problems: ErrorDetail[] = [];
    for (const ref of refs.queues)
      if (!found.queues.has(ref.id)) problems.push({ field: ref.path, message: 'is not a queue of this workspace' });
    for (const ref of refs.users)
      if (!found.users.has(ref.id)) problems.push({ field: ref.path, message: 'is not a member of this workspace' });
    if (refs.postbacks.length > 0) {
      const missing = refs.postbacks.filter((p) => !value.offeredPayloads.includes(p.payload));
      const offered = await this.automations.offeredPayloads(
        missing.map((p) => p.payload),
        automationId,
      );
      for (const ref of missing) {
        if (!offered.has(ref.payload)) {
          problems.push({
            field: ref.path,
            message: 'is not the payload of a button any flow of this workspace sends (SEND_BUTTONS)',
          });
        }
      }
    }
    if (problems.length > 0) throw invalid(problems);
    return value;
  }
}

function invalid(details: ErrorDetail[]): AppException {
  const first = details[0];
  return AppException.validation(first ? `${first.field} ${first.message}` : 'The automation is not valid', details);
}

function record(v: unknown): Record<string, unknown> | null {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function sampleSubject(sample: Record<string, unknown>): EvaluationSubject {
  return {
    message: record(sample.message),
    conversation: record(sample.conversation),
    contact: record(sample.contact),
    ticket: record(sample.ticket),
  };
}

export function toResponse(a: AutomationEntity): AutomationResponse {
  return {
    id: a.id,
    name: a.name,
    active: a.active,
    kind: a.kind,
    trigger: a.trigger,
    conditions: { all: a.conditions.all ?? [], any: a.conditions.any ?? [] },
    actions: a.actions,
    order: a.order,
    runCount: a.runCount,
    lastRunAt: a.lastRunAt?.toISOString() ?? null,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

function toRunResponse(r: AutomationRunEntity): AutomationRunResponse {
  return {
    id: r.id,
    automationId: r.automationId,
    trigger: r.trigger,
    conversationId: r.conversationId,
    matched: r.matched,
    status: r.status,
    actions: r.actions,
    durationMs: r.durationMs,
    createdAt: r.createdAt.toISOString(),
  };
}
