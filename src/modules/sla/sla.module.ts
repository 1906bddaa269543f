import { DatabaseModule } from 'src/core/database/database.module';
import { ConversationSlaEntity } from './conversation-sla.entity';
import { SlaPolicyEntity } from './sla-policy.entity';
import { Module } from '@nestjs/common';
import { InboxModule } from 'src/modules/inbox';
import { ConversationSlasRepository } from './conversation-slas.repository';
import { SlaBreachScheduler } from './sla-breach.scheduler';
import { SlaBreachSweepRepository } from './sla-breach-sweep.repository';
import { SlaController } from './sla.controller';
import { SlaPoliciesRepository } from './sla-policies.repository';
import { SlaPoliciesService } from './sla-policies.service';
import { SlaService } from './sla.service';

/** SLA policies, their application to new conversations and tickets, the summary and the breach timer. */
@Module({
  imports: [DatabaseModule.forEntities([ConversationSlaEntity, SlaPolicyEntity]), InboxModule],
  controllers: [SlaController],
  providers: [
    SlaPoliciesRepository,
    ConversationSlasRepository,
    SlaBreachSweepRepository,
    SlaPoliciesService,
    SlaService,
    SlaBreachScheduler,
  ],
  exports: [SlaService],
})
export class SlaModule {}
