/** What other modules may use from the queues module. */
export { QueuesModule } from './queues.module';
export { QueuesService } from './queues.service';
export { RoutingService } from './routing.service';
export { PresenceService } from './presence.service';
export { ConversationAssignmentsPort, type ConversationAssignments } from './conversation-assignments.port';
export type { QueueStrategy } from './queue.entity';
export type { PresenceStatus } from './agent-status.entity';
