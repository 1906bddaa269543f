import type { SlaPolicyFigures, SlaTargetFigures } from './dto/sla-summary.dto';
import type { SlaPolicyResponse } from './dto/sla-policy.dto';
import type { SlaSummaryRow } from './conversation-slas.repository';
import type { SlaPolicyEntity } from './sla-policy.entity';

export function toSlaPolicyResponse(p: SlaPolicyEntity): SlaPolicyResponse {
  return {
    id: p.id,
    name: p.name,
    active: p.active,
    order: p.order,
    conditions: { priorities: p.priorities, channelTypes: p.channelTypes, queueIds: p.queueIds },
    firstResponseMinutes: p.firstResponseMinutes,
    resolutionMinutes: p.resolutionMinutes,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export const EMPTY_TARGET: SlaTargetFigures = {
  met: 0,
  breached: 0,
  pending: 0,
  complianceRate: null,
  averageSeconds: null,
};

export function firstResponseFigures(r: SlaSummaryRow): SlaTargetFigures {
  return {
    met: r.fr_met,
    breached: r.fr_breached,
    pending: r.fr_pending,
    complianceRate: r.fr_rate,
    averageSeconds: r.fr_avg,
  };
}

export function resolutionFigures(r: SlaSummaryRow): SlaTargetFigures {
  return {
    met: r.res_met,
    breached: r.res_breached,
    pending: r.res_pending,
    complianceRate: r.res_rate,
    averageSeconds: r.res_avg,
  };
}

export function toPolicyFigures(r: SlaSummaryRow & { policy_id: string }): SlaPolicyFigures {
  return {
    policyId: r.policy_id,
    name: r.name ?? '',
    conversations: r.conversations,
    firstResponse: firstResponseFigures(r),
    resolution: resolutionFigures(r),
  };
}
