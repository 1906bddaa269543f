/** What other modules may use from tickets: import from 'src/modules/tickets', nothing deeper. */
export { TicketsModule } from './tickets.module';
export { TicketsService } from './tickets.service';
export { TicketCreator, type TicketDraft, type CreateOptions as TicketCreateOptions } from './ticket-creator.service';
export { AutomaticTicketsService } from './automatic-tickets.service';
export { TicketSettingsService } from './ticket-settings.service';
export type { TicketResponse, TicketCommentResponse, TicketDetailResponse } from './dto/ticket.dto';
export { TICKET_STATUSES, TICKET_SOURCES, type TicketStatus, type TicketSource } from './tickets.constants';
