/** What other modules may use from AI agents: import from 'src/modules/ai-agents', nothing deeper. */
export { AiAgentsModule } from './ai-agents.module';
export { AiConversationStatesService } from './ai-conversation-states.service';
export type { AiConversationStatus } from './ai-conversation-state.entity';
