import { Injectable } from '@nestjs/common';
import type { InboundStage } from './inbound-stage';

/**
 * The registry of pipeline stages other modules contribute. Modules register in `onModuleInit`:
 *
 *   this.pipeline.register({ name: 'tickets.auto-create', order: InboundStageOrder.Ticket, run: (ctx) => … });
 *
 * The order is the numbers', never the registration order, so the processor owns it.
 */
@Injectable()
export class InboundPipeline {
  private stages: InboundStage[] = [];

  register(stage: InboundStage): void {
    const clash = this.stages.find((s) => s.order === stage.order || s.name === stage.name);
    if (clash) {
      throw new Error(
        `Inbound stage "${stage.name}" (order ${stage.order}) clashes with "${clash.name}" (order ${clash.order})`,
      );
    }
    this.stages = [...this.stages, stage].sort((a, b) => a.order - b.order);
  }

  /** Removes a stage (tests). */
  unregister(name: string): void {
    this.stages = this.stages.filter((s) => s.name !== name);
  }

  /** The stages in pipeline order. */
  list(): readonly InboundStage[] {
    return this.stages;
  }
}
