import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { TicketSettingsEntity } from './ticket-settings.entity';
import type { TicketSettingsValues } from './tickets.constants';

@Injectable()
export class TicketSettingsRepository extends WorkspaceScopedRepository<TicketSettingsEntity> {
  constructor(tx: TransactionHost) {
    super(tx, TicketSettingsEntity, 'ts', 'Ticket settings');
  }

  /** The workspace's row, or null while it uses the defaults. */
  findCurrent(): Promise<TicketSettingsEntity | null> {
    return this.scopedQuery().getOne();
  }

  /** Writes the whole settings row (one per workspace). */
  async save(values: TicketSettingsValues): Promise<TicketSettingsEntity> {
    const rows: Record<string, unknown>[] = await this.query(
      `INSERT INTO ticket_settings (workspace_id, auto_create_from_conversation, key_prefix, default_priority,
                                    resolve_with_conversation)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (workspace_id) DO UPDATE
         SET auto_create_from_conversation = EXCLUDED.auto_create_from_conversation,
             key_prefix = EXCLUDED.key_prefix,
             default_priority = EXCLUDED.default_priority,
             resolve_with_conversation = EXCLUDED.resolve_with_conversation,
             updated_at = now()
       RETURNING *`,
      [values.autoCreateFromConversation, values.keyPrefix, values.defaultPriority, values.resolveWithConversation],
    );
    return this.fromRaw(rows[0]!);
  }
}
