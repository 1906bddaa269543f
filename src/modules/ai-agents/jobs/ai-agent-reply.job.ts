import { Injectable } from '@nestjs/common';
import { JobHandler } from 'src/core/queue/job-handler.decorator';
import { JobName, QueueName } from 'src/core/queue/job-names';
import { type AiAgentReplyJobData, AiConversationsService } from '../ai-conversations.service';

/** An LLM agent's answer (or suggested reply) to one inbound message, after the event's transaction. */
@Injectable()
export class AiAgentReplyJob {
  constructor(private readonly ai: AiConversationsService) {}

  @JobHandler({ name: JobName.AiAgentReply, queue: QueueName.Ai, concurrency: 4 })
  handle(data: AiAgentReplyJobData): Promise<string> {
    return this.ai.runJob(data);
  }
}
