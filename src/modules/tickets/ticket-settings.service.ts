import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { CacheInvalidation, TopicCache } from 'src/core/events/cache-invalidation';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { TicketSettingsResponse, UpdateTicketSettingsDto } from './dto/ticket-settings.dto';
import { toTicketSettingsResponse } from './ticket.mapper';
import { TicketSettingsRepository } from './ticket-settings.repository';
import { DEFAULT_TICKET_SETTINGS, type TicketSettingsValues } from './tickets.constants';

/** `GET, PUT /tickets/settings` (DESIGN §6): defaults until a workspace changes them. */
@Injectable()
export class TicketSettingsService {
  /** Per workspace: read for every new conversation's automatic ticket (issue 16 item 3). */
  private readonly cache: TopicCache<TicketSettingsValues>;

  constructor(
    private readonly tx: TransactionHost,
    private readonly settings: TicketSettingsRepository,
    private readonly invalidation: CacheInvalidation,
  ) {
    this.cache = new TopicCache(invalidation, 'ticket-settings');
  }

  async get(_ctx: TenantContext): Promise<TicketSettingsResponse> {
    return toTicketSettingsResponse(await this.current());
  }

  async update(_ctx: TenantContext, dto: UpdateTicketSettingsDto): Promise<TicketSettingsResponse> {
    const saved = await this.tx.run(async () => {
      const current = await this.current();
      await this.invalidation.changed('ticket-settings');
      return this.settings.save({
        autoCreateFromConversation: dto.autoCreateFromConversation ?? current.autoCreateFromConversation,
        keyPrefix: dto.keyPrefix ?? current.keyPrefix,
        defaultPriority: dto.defaultPriority ?? current.defaultPriority,
        resolveWithConversation: dto.resolveWithConversation ?? current.resolveWithConversation,
      });
    });
    return toTicketSettingsResponse(saved);
  }

  /**
   * The caller's workspace's settings (joins the open transaction), from memory while cross-process
   * invalidation is up: `update` announces every change to every process at commit.
   */
  current(): Promise<TicketSettingsValues> {
    return this.cache.get(getTenantContext().workspaceId, async () => {
      const row = await this.settings.findCurrent();
      return row ? valuesOf(row) : DEFAULT_TICKET_SETTINGS;
    });
  }
}

/** Only the settings' values are kept in memory (not the entity, which callers could change). */
function valuesOf(row: TicketSettingsValues): TicketSettingsValues {
  return {
    autoCreateFromConversation: row.autoCreateFromConversation,
    keyPrefix: row.keyPrefix,
    defaultPriority: row.defaultPriority,
    resolveWithConversation: row.resolveWithConversation,
  };
}
