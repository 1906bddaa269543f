import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { CacheInvalidation, TopicCache } from 'src/core/events/cache-invalidation';
import type { Page } from 'src/core/http/pagination';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { CreateSlaPolicyDto, SlaPolicyResponse, UpdateSlaPolicyDto } from './dto/sla-policy.dto';
import { SlaPoliciesRepository } from './sla-policies.repository';
import type { SlaPolicyEntity } from './sla-policy.entity';
import type { MatchablePolicy } from './sla-match.util';
import { MAX_SLA_POLICIES } from './sla.constants';
import { toSlaPolicyResponse } from './sla.mapper';

/** What matching needs of an active policy (kept in memory per workspace). */
export interface ActivePolicy extends MatchablePolicy {
  readonly id: string;
  readonly name: string;
  readonly firstResponseMinutes: number;
  readonly resolutionMinutes: number;
}

/** SLA policies (DESIGN §5.3): CRUD; matching lives in SlaService. */
@Injectable()
export class SlaPoliciesService {
  /** Per workspace: matched for every new conversation and its automatic ticket (issue 16 item 3). */
  private readonly cache: TopicCache<readonly ActivePolicy[]>;

  constructor(
    private readonly tx: TransactionHost,
    private readonly policies: SlaPoliciesRepository,
    private readonly invalidation: CacheInvalidation,
  ) {
    this.cache = new TopicCache(invalidation, 'sla-policies');
  }

  /**
   * The caller's workspace's active policies in matching order (joins the open transaction), from
   * memory while cross-process invalidation is up: every change here is announced to every process at
   * commit.
   */
  activeOrdered(): Promise<readonly ActivePolicy[]> {
    return this.cache.get(getTenantContext().workspaceId, async () =>
      Object.freeze((await this.policies.findActiveOrdered()).map(activePolicyOf)),
    );
  }

  /** Every policy in matching order (a workspace has at most 100, so the list is never paged). */
  async list(_ctx: TenantContext): Promise<Page<SlaPolicyResponse>> {
    return { data: (await this.policies.findAllOrdered()).map(toSlaPolicyResponse), nextCursor: null };
  }

  async create(_ctx: TenantContext, dto: CreateSlaPolicyDto): Promise<SlaPolicyResponse> {
    const policy = await this.tx.run(async () => {
      await this.invalidation.changed('sla-policies');
      if ((await this.policies.count()) >= MAX_SLA_POLICIES) {
        throw AppException.conflict(`A workspace has at most ${MAX_SLA_POLICIES} SLA policies`);
      }
      return this.policies.insert({
        name: dto.name,
        active: dto.active ?? true,
        order: dto.order ?? (await this.policies.nextOrder()),
        priorities: dto.conditions?.priorities ?? [],
        channelTypes: dto.conditions?.channelTypes ?? [],
        queueIds: dto.conditions?.queueIds ?? [],
        firstResponseMinutes: dto.firstResponseMinutes,
        resolutionMinutes: dto.resolutionMinutes,
      });
    });
    return toSlaPolicyResponse(policy);
  }

  async update(_ctx: TenantContext, id: string, dto: UpdateSlaPolicyDto): Promise<SlaPolicyResponse> {
    const conditions = dto.conditions;
    const policy = await this.tx.run(async () => {
      await this.invalidation.changed('sla-policies');
      return this.policies.update(id, {
        ...(dto.name !== undefined ? { name: dto.name } : {}),
        ...(dto.active !== undefined ? { active: dto.active } : {}),
        ...(dto.order !== undefined ? { order: dto.order } : {}),
        ...(conditions?.priorities !== undefined ? { priorities: conditions.priorities } : {}),
        ...(conditions?.channelTypes !== undefined ? { channelTypes: conditions.channelTypes } : {}),
        ...(conditions?.queueIds !== undefined ? { queueIds: conditions.queueIds } : {}),
        ...(dto.firstResponseMinutes !== undefined ? { firstResponseMinutes: dto.firstResponseMinutes } : {}),
        ...(dto.resolutionMinutes !== undefined ? { resolutionMinutes: dto.resolutionMinutes } : {}),
      });
    });
    return toSlaPolicyResponse(policy);
  }

  /** Deletes the policy; conversations it was applied to keep their due times and count under it in the summary. */
  async remove(_ctx: TenantContext, id: string): Promise<void> {
    await this.tx.run(async () => {
      await this.invalidation.changed('sla-policies');
      await this.policies.deleteById(id);
    });
  }
}

/** Only the matching values are kept in memory (not the entity, which callers could change). */
function activePolicyOf(p: SlaPolicyEntity): ActivePolicy {
  return Object.freeze({
    id: p.id,
    name: p.name,
    active: p.active,
    priorities: Object.freeze([...p.priorities]),
    channelTypes: Object.freeze([...p.channelTypes]),
    queueIds: Object.freeze([...p.queueIds]),
    firstResponseMinutes: p.firstResponseMinutes,
    resolutionMinutes: p.resolutionMinutes,
  });
}
