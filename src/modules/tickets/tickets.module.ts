import { DatabaseModule } from 'src/core/database/database.module';
import { TicketCommentEntity } from './ticket-comment.entity';
import { TicketSettingsEntity } from './ticket-settings.entity';
import { TicketEntity } from './ticket.entity';
import { Module } from '@nestjs/common';
import { ContactsModule } from 'src/modules/contacts';
import { InboundModule } from 'src/modules/inbound';
import { InboxModule } from 'src/modules/inbox';
import { SlaModule } from 'src/modules/sla';
import { WorkspacesModule } from 'src/modules/workspaces';
import { AutomaticTicketsService } from './automatic-tickets.service';
import { TicketBoardService } from './ticket-board.service';
import { TicketCommentsRepository } from './ticket-comments.repository';
import { TicketCreator } from './ticket-creator.service';
import { TicketSettingsController } from './ticket-settings.controller';
import { TicketSettingsRepository } from './ticket-settings.repository';
import { TicketSettingsService } from './ticket-settings.service';
import { TicketsController } from './tickets.controller';
import { TicketsRepository } from './tickets.repository';
import { TicketsService } from './tickets.service';

/** Tickets, their comments and settings, the automatic ticket of new conversations. */
@Module({
  imports: [
    DatabaseModule.forEntities([TicketCommentEntity, TicketSettingsEntity, TicketEntity]),
    ContactsModule,
    InboxModule,
    InboundModule,
    SlaModule,
    WorkspacesModule,
  ],
  // Order matters: /tickets/settings before /tickets/:id.
  controllers: [TicketSettingsController, TicketsController],
  providers: [
    TicketsRepository,
    TicketCommentsRepository,
    TicketSettingsRepository,
    TicketSettingsService,
    TicketCreator,
    TicketsService,
    TicketBoardService,
    AutomaticTicketsService,
  ],
  exports: [TicketsService, TicketCreator, AutomaticTicketsService],
})
export class TicketsModule {}
