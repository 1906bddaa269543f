/** What other modules may use from the inbound module: import from 'src/modules/inbound', nothing deeper. */
export { InboundModule } from './inbound.module';
export { InboundPipeline } from './pipeline/inbound-pipeline';
export {
  InboundStageOrder,
  PUBLISH_BEFORE_ORDER,
  type InboundStage,
  type InboundStageContext,
  type InboundStageResult,
} from './pipeline/inbound-stage';
export { InboundRecoveryService, INBOUND_STARTUP_SWEEP_DELAY_MS } from './events/inbound-recovery.service';
export { InboundEventsService } from './events/inbound-events.service';
export type { InboundEventJobData } from './inbound-event.job';
