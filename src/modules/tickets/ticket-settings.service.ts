import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { TicketSettingsResponse, UpdateTicketSettingsDto } from './dto/ticket-settings.dto';
import { toTicketSettingsResponse } from './ticket.mapper';
import { TicketSettingsRepository } from './ticket-settings.repository';
import { DEFAULT_TICKET_SETTINGS, type TicketSettingsValues } from './tickets.constants';

/** `GET, PUT /tickets/settings` (DESIGN §6): defaults until a workspace changes them. */
@Injectable()
export class TicketSettingsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly settings: TicketSettingsRepository,
  ) {}

  async get(_ctx: TenantContext): Promise<TicketSettingsResponse> {
    return toTicketSettingsResponse(await this.current());
  }

  async update(_ctx: TenantContext, dto: UpdateTicketSettingsDto): Promise<TicketSettingsResponse> {
    const saved = await this.tx.run(async () => {
      const current = await this.current();
      return this.settings.save({
        autoCreateFromConversation: dto.autoCreateFromConversation ?? current.autoCreateFromConversation,
        keyPrefix: dto.keyPrefix ?? current.keyPrefix,
        defaultPriority: dto.defaultPriority ?? current.defaultPriority,
        resolveWithConversation: dto.resolveWithConversation ?? current.resolveWithConversation,
      });
    });
    return toTicketSettingsResponse(saved);
  }

  /** The caller's workspace's settings (joins the open transaction). */
  async current(): Promise<TicketSettingsValues> {
    const row = await this.settings.findCurrent();
    return row ?? DEFAULT_TICKET_SETTINGS;
  }
}
