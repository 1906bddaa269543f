import { Module } from '@nestjs/common';
import { DatabaseModule } from 'src/core/database/database.module';
import { AiAgentsModule } from 'src/modules/ai-agents';
import { ContactsModule } from 'src/modules/contacts';
import { InboundModule } from 'src/modules/inbound';
import { InboxModule } from 'src/modules/inbox';
import { TicketsModule } from 'src/modules/tickets';
import { AutomationActionsService } from './automation-actions.service';
import { AutomationCache } from './automation-cache.service';
import { AutomationRunLog } from './automation-run-log.service';
import { AutomationRunEntity } from './automation-run.entity';
import { AutomationRunsRepository } from './automation-runs.repository';
import { AutomationEntity } from './automation.entity';
import { AutomationsController } from './automations.controller';
import { AutomationsRepository } from './automations.repository';
import { AutomationsService } from './automations.service';
import { FlowEngine } from './flow-engine.service';
import { RuleEngine } from './rule-engine.service';

/** Automations and flows (DESIGN §8): definitions, the RULE and FLOW engines, the run log. */
@Module({
  imports: [
    DatabaseModule.forEntities([AutomationEntity, AutomationRunEntity]),
    AiAgentsModule,
    ContactsModule,
    InboundModule,
    InboxModule,
    TicketsModule,
  ],
  controllers: [AutomationsController],
  providers: [
    AutomationsRepository,
    AutomationRunsRepository,
    AutomationRunLog,
    AutomationCache,
    AutomationActionsService,
    AutomationsService,
    RuleEngine,
    FlowEngine,
  ],
  exports: [AutomationsService],
})
export class AutomationsModule {}
