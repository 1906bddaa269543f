import { Module } from '@nestjs/common';
import { UsersModule } from 'src/modules/users/users.module';
import { CapacityService } from './capacity.service';
import { ConversationAssignmentsPort } from './conversation-assignments.port';
import { PresenceController } from './presence.controller';
import { PresenceService } from './presence.service';
import { QueuesController } from './queues.controller';
import { QueuesRepository } from './queues.repository';
import { QueuesService } from './queues.service';
import { RoutingRepository } from './routing.repository';
import { RoutingService } from './routing.service';

/** Queues, members, capacity, presence and routing (who gets a conversation). */
@Module({
  imports: [UsersModule],
  controllers: [QueuesController, PresenceController],
  providers: [
    ConversationAssignmentsPort,
    QueuesRepository,
    RoutingRepository,
    QueuesService,
    RoutingService,
    CapacityService,
    PresenceService,
  ],
  exports: [QueuesService, RoutingService, ConversationAssignmentsPort],
})
export class QueuesModule {}
