import { DatabaseModule } from 'src/core/database/database.module';
import { AiAgentEntity } from './ai-agent.entity';
import { AiConversationStateEntity } from './ai-conversation-state.entity';
import { Module } from '@nestjs/common';
import { CatalogueModule } from 'src/modules/catalogue';
import { ChannelsModule } from 'src/modules/channels';
import { InboundModule } from 'src/modules/inbound';
import { InboxModule } from 'src/modules/inbox';
import { AiAgentsController, AiConversationToolsController } from './ai-agents.controller';
import { AiAgentsRepository } from './ai-agents.repository';
import { AiAgentsService } from './ai-agents.service';
import { AiConversationStatesRepository } from './ai-conversation-states.repository';
import { AiConversationStatesService } from './ai-conversation-states.service';
import { AiConversationsService } from './ai-conversations.service';
import { AiResponder } from './ai-responder.service';
import { BuiltinAgent } from './builtin/builtin-agent';
import { AiAgentReplyJob } from './jobs/ai-agent-reply.job';
import { LlmClient } from './llm/llm-client';

/** AI agents (DESIGN §9): settings, the built-in and LLM providers, pipeline stages 410/420, AI tools. */
@Module({
  imports: [
    DatabaseModule.forEntities([AiAgentEntity, AiConversationStateEntity]),
    CatalogueModule,
    ChannelsModule,
    InboundModule,
    InboxModule,
  ],
  controllers: [AiAgentsController, AiConversationToolsController],
  providers: [
    AiConversationStatesRepository,
    AiConversationStatesService,
    AiAgentsRepository,
    AiAgentsService,
    AiConversationsService,
    AiResponder,
    BuiltinAgent,
    LlmClient,
    AiAgentReplyJob,
  ],
  exports: [AiConversationStatesService],
})
export class AiAgentsModule {}
