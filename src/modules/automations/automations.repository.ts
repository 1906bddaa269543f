import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { CacheInvalidation } from 'src/core/events/cache-invalidation';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { AutomationEntity } from './automation.entity';
import type { AutomationKind } from './automation.types';

export interface AutomationFilters {
  readonly kind?: AutomationKind;
  readonly active?: boolean;
}

@Injectable()
export class AutomationsRepository extends WorkspaceScopedRepository<AutomationEntity> {
  constructor(
    tx: TransactionHost,
    private readonly invalidation: CacheInvalidation,
  ) {
    super(tx, AutomationEntity, 'a', 'Automation');
  }

  findPage(filters: AutomationFilters, query: CursorPaginationQuery): Promise<Page<AutomationEntity>> {
    const qb = this.scopedQuery();
    if (filters.kind) qb.andWhere('a.kind = :kind', { kind: filters.kind });
    if (filters.active !== undefined) qb.andWhere('a.active = :active', { active: filters.active });
    return findKeysetPage(qb, query, newestFirst<AutomationEntity>('a'));
  }

  /** The workspace's active automations in evaluation order (`order`, then oldest first). */
  findActive(): Promise<AutomationEntity[]> {
    return this.scopedQuery()
      .andWhere('a.active')
      .orderBy('a.order', 'ASC')
      .addOrderBy('a.created_at', 'ASC')
      .addOrderBy('a.id', 'ASC')
      .getMany();
  }

  /**
   * Bumps the workspace's cache version (in the caller's transaction): every worker re-reads the
   * active automations on its next event — told at commit (CacheInvalidation), or, without that, by
   * reading the version per event.
   */
  async bumpVersion(): Promise<void> {
    await this.invalidation.changed('automations');
    await this.query(
      `INSERT INTO automation_cache_versions (workspace_id, version) VALUES ($1, 1)
       ON CONFLICT (workspace_id) DO UPDATE SET version = automation_cache_versions.version + 1`,
      [],
    );
  }

  /** The workspace's cache version (0 before any automation was saved): one primary-key read. */
  async version(): Promise<number> {
    const rows: { version: string }[] = await this.query(
      `SELECT version FROM automation_cache_versions WHERE workspace_id = $1`,
      [],
    );
    return rows[0] ? Number(rows[0].version) : 0;
  }

  /**
   * Which of these ids are queues / members of the caller's workspace (definition validation: a
   * read-only existence check, one statement for both).
   */
  async existingRefs(queueIds: string[], userIds: string[]): Promise<{ queues: Set<string>; users: Set<string> }> {
    if (queueIds.length === 0 && userIds.length === 0) return { queues: new Set(), users: new Set() };
    const rows: { kind: string; id: string }[] = await this.query(
      `SELECT 'queue' AS kind, id::text AS id FROM queues WHERE workspace_id = $1 AND id = ANY($2::uuid[])
       UNION ALL
       SELECT 'user', user_id::text FROM memberships WHERE workspace_id = $1 AND user_id = ANY($3::uuid[])`,
      [queueIds, userIds],
    );
    return {
      queues: new Set(rows.filter((r) => r.kind === 'queue').map((r) => r.id)),
      users: new Set(rows.filter((r) => r.kind === 'user').map((r) => r.id)),
    };
  }

  /** The button payloads SEND_BUTTONS steps of the workspace's flows offer (other than `exceptId`'s). */
  async offeredPayloads(payloads: string[], exceptId: string | null): Promise<Set<string>> {
    if (payloads.length === 0) return new Set();
    const rows: { payload: string }[] = await this.query(
      `SELECT DISTINCT b ->> 'payload' AS payload
         FROM automations a,
              jsonb_array_elements(a.actions) AS s,
              jsonb_array_elements(CASE WHEN jsonb_typeof(s -> 'params' -> 'buttons') = 'array' THEN s -> 'params' -> 'buttons' ELSE '[]'::jsonb END) AS b
        WHERE a.workspace_id = $1 AND a.kind = 'FLOW' AND s ->> 'type' = 'SEND_BUTTONS'
          AND ($2::uuid IS NULL OR a.id <> $2::uuid) AND b ->> 'payload' = ANY($3::text[])`,
      [exceptId, payloads],
    );
    return new Set(rows.map((r) => r.payload));
  }
}
