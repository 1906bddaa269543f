/** Every queue the service uses. One BullMQ queue each (prefixed by QUEUE_PREFIX). */
export enum QueueName {
  Maintenance = 'maintenance',
  Catalog = 'catalog',
  Inbound = 'inbound',
  Outbound = 'outbound',
  Webhooks = 'webhooks',
  Ai = 'ai',
}

/**
 * Every job the service knows. Start-up fails unless each has exactly one @JobHandler.
 * Add a job here, in its module's `jobs/` folder, and nowhere else.
 */
export enum JobName {
  AiAgentReply = 'ai-agent.reply',
  ApiTokenTouch = 'api-token.touch',
  CatalogWebsiteSync = 'catalog.website-sync',
  DeveloperOutboxRelay = 'developer.outbox.relay',
  DeveloperWebhookDrain = 'developer.webhook.drain',
  InboundEventProcess = 'inbound.event.process',
  OutboundMessageDeliver = 'outbound.message.deliver',
  OutboundMessagesDeliver = 'outbound.messages.deliver',
}
