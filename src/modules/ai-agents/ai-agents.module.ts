import { DatabaseModule } from 'src/core/database/database.module';
import { AiConversationStateEntity } from './ai-conversation-state.entity';
import { Module } from '@nestjs/common';
import { AiConversationStatesRepository } from './ai-conversation-states.repository';
import { AiConversationStatesService } from './ai-conversation-states.service';

/** AI agents (DESIGN §9). */
@Module({
  imports: [DatabaseModule.forEntities([AiConversationStateEntity])],
  providers: [AiConversationStatesRepository, AiConversationStatesService],
  exports: [AiConversationStatesService],
})
export class AiAgentsModule {}
