import { Module } from '@nestjs/common';
import { AiConversationStatesRepository } from './ai-conversation-states.repository';
import { AiConversationStatesService } from './ai-conversation-states.service';

/** AI agents (DESIGN §9). */
@Module({
  providers: [AiConversationStatesRepository, AiConversationStatesService],
  exports: [AiConversationStatesService],
})
export class AiAgentsModule {}
