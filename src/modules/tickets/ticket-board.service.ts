import { Injectable } from '@nestjs/common';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { WorkspacesService } from 'src/modules/workspaces';
import type { TicketBoardResponse, TicketFiltersQuery, TicketStatsResponse } from './dto/ticket.dto';
import { toTicketResponse } from './ticket.mapper';
import { toTicketFilters } from './ticket-filters.util';
import { TicketsRepository } from './tickets.repository';
import { BOARD_COLUMN_LIMIT, TICKET_STATUSES } from './tickets.constants';

/** `GET /tickets/board` and `GET /tickets/stats`: the list's filters, figures computed in SQL. */
@Injectable()
export class TicketBoardService {
  constructor(
    private readonly tickets: TicketsRepository,
    private readonly workspaces: WorkspacesService,
  ) {}

  /** One column per status in board order, each with its count and newest 50 tickets. */
  async board(ctx: TenantContext, query: TicketFiltersQuery): Promise<TicketBoardResponse> {
    const filters = toTicketFilters(ctx, query);
    const counts = await this.tickets.countByStatus(filters);
    const columns = [];
    for (const status of TICKET_STATUSES) {
      const tickets =
        counts[status] > 0 ? await this.tickets.findNewestInStatus(filters, status, BOARD_COLUMN_LIMIT) : [];
      columns.push({ status, count: counts[status], tickets: tickets.map(toTicketResponse) });
    }
    return { columns };
  }

  /** Counts by status and priority, overdue, created/resolved today (workspace timezone), mean resolution time. */
  async stats(ctx: TenantContext, query: TicketFiltersQuery): Promise<TicketStatsResponse> {
    const filters = toTicketFilters(ctx, query);
    const { timezone } = await this.workspaces.get(ctx);
    return this.tickets.stats(filters, timezone);
  }
}
