import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import type { Page } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { CreateSlaPolicyDto, SlaPolicyResponse, UpdateSlaPolicyDto } from './dto/sla-policy.dto';
import { SlaPoliciesRepository } from './sla-policies.repository';
import { MAX_SLA_POLICIES } from './sla.constants';
import { toSlaPolicyResponse } from './sla.mapper';

/** SLA policies (DESIGN §5.3): CRUD; matching lives in SlaService. */
@Injectable()
export class SlaPoliciesService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly policies: SlaPoliciesRepository,
  ) {}

  /** Every policy in matching order (a workspace has at most 100, so the list is never paged). */
  async list(_ctx: TenantContext): Promise<Page<SlaPolicyResponse>> {
    return { data: (await this.policies.findAllOrdered()).map(toSlaPolicyResponse), nextCursor: null };
  }

  async create(_ctx: TenantContext, dto: CreateSlaPolicyDto): Promise<SlaPolicyResponse> {
    const policy = await this.tx.run(async () => {
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
    const policy = await this.policies.update(id, {
      ...(dto.name !== undefined ? { name: dto.name } : {}),
      ...(dto.active !== undefined ? { active: dto.active } : {}),
      ...(dto.order !== undefined ? { order: dto.order } : {}),
      ...(conditions?.priorities !== undefined ? { priorities: conditions.priorities } : {}),
      ...(conditions?.channelTypes !== undefined ? { channelTypes: conditions.channelTypes } : {}),
      ...(conditions?.queueIds !== undefined ? { queueIds: conditions.queueIds } : {}),
      ...(dto.firstResponseMinutes !== undefined ? { firstResponseMinutes: dto.firstResponseMinutes } : {}),
      ...(dto.resolutionMinutes !== undefined ? { resolutionMinutes: dto.resolutionMinutes } : {}),
    });
    return toSlaPolicyResponse(policy);
  }

  /** Deletes the policy; conversations it was applied to keep their due times and count under it in the summary. */
  async remove(_ctx: TenantContext, id: string): Promise<void> {
    await this.policies.deleteById(id);
  }
}
