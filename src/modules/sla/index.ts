/** What other modules may use from the SLA module: import from 'src/modules/sla', nothing deeper. */
export { SlaModule } from './sla.module';
export { SlaService, type AppliedPolicy, type SlaConversation } from './sla.service';
export { SlaBreachScheduler } from './sla-breach.scheduler';
export type { SlaSubject } from './sla-match.util';
export { SLA_TARGETS, type SlaTarget } from './sla.constants';
