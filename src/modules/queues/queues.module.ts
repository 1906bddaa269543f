import { DatabaseModule } from 'src/core/database/database.module';
import { AgentStatusEntity } from './agent-status.entity';
import { PresenceIntervalEntity } from './presence-interval.entity';
import { QueueMemberEntity } from './queue-member.entity';
import { QueueEntity } from './queue.entity';
import { Module } from '@nestjs/common';
import { UsersModule } from 'src/modules/users';
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
  imports: [
    DatabaseModule.forEntities([AgentStatusEntity, PresenceIntervalEntity, QueueMemberEntity, QueueEntity]),
    UsersModule,
  ],
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
  exports: [QueuesService, RoutingService, PresenceService, ConversationAssignmentsPort],
})
export class QueuesModule {}
