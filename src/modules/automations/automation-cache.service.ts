import { Injectable } from '@nestjs/common';
import { CacheInvalidation, TopicCache } from 'src/core/events/cache-invalidation';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import type { AutomationEntity } from './automation.entity';
import type { ActiveAutomation, FlowTrigger, RuleTrigger } from './automation.types';
import { AutomationsRepository } from './automations.repository';

/** The active automations of one workspace, grouped for the engines. */
export interface AutomationSnapshot {
  readonly version: number;
  readonly rules: ReadonlyMap<RuleTrigger, readonly ActiveAutomation[]>;
  readonly flows: readonly (ActiveAutomation & { readonly trigger: FlowTrigger })[];
}

/** Workspaces kept in memory (least recently used dropped first). */
const MAX_WORKSPACES = 1_000;

/**
 * Active automations per workspace, kept in process memory and re-read only when the workspace's
 * `automation_cache_versions` row moved: every change to its automations bumps it in the same
 * transaction, so another worker's edit is seen on the next event. Cost per event: one primary-key
 * read (never one query per rule) — none while cross-process invalidation is up: the bump also
 * notifies every process at commit (CacheInvalidation), so the version read is cached until then.
 */
@Injectable()
export class AutomationCache {
  private readonly snapshots = new Map<string, AutomationSnapshot>();
  private readonly versions: TopicCache<number>;

  constructor(
    private readonly automations: AutomationsRepository,
    invalidation: CacheInvalidation,
  ) {
    this.versions = new TopicCache(invalidation, 'automations', MAX_WORKSPACES);
  }

  async current(): Promise<AutomationSnapshot> {
    const workspaceId = getTenantContext().workspaceId;
    const version = await this.versions.get(workspaceId, () => this.automations.version());
    const cached = this.snapshots.get(workspaceId);
    if (cached && cached.version === version) {
      this.snapshots.delete(workspaceId);
      this.snapshots.set(workspaceId, cached);
      return cached;
    }
    const snapshot = toSnapshot(version, await this.automations.findActive());
    this.snapshots.delete(workspaceId);
    this.snapshots.set(workspaceId, snapshot);
    if (this.snapshots.size > MAX_WORKSPACES) {
      const oldest = this.snapshots.keys().next().value;
      if (oldest !== undefined) this.snapshots.delete(oldest);
    }
    return snapshot;
  }
}

function toSnapshot(version: number, rows: AutomationEntity[]): AutomationSnapshot {
  const rules = new Map<RuleTrigger, ActiveAutomation[]>();
  const flows: (ActiveAutomation & { trigger: FlowTrigger })[] = [];
  for (const row of rows) {
    const automation: ActiveAutomation = {
      id: row.id,
      name: row.name,
      kind: row.kind,
      trigger: row.trigger,
      conditions: { all: row.conditions.all ?? [], any: row.conditions.any ?? [] },
      actions: row.actions,
      order: row.order,
    };
    if (row.kind === 'RULE' && typeof row.trigger === 'string') {
      rules.set(row.trigger, [...(rules.get(row.trigger) ?? []), automation]);
    } else if (row.kind === 'FLOW' && typeof row.trigger === 'object') {
      flows.push(automation as ActiveAutomation & { trigger: FlowTrigger });
    }
  }
  return { version, rules, flows };
}
