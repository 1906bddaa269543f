import { CreateIdentity1763800000000 } from './1763800000000-CreateIdentity';
import { CreateContacts1763800100000 } from './1763800100000-CreateContacts';
import { CreateChannels1763800200000 } from './1763800200000-CreateChannels';
import { CreateRouting1763800200100 } from './1763800200100-CreateRouting';
import { CreateInbox1763800200200 } from './1763800200200-CreateInbox';
import { CreateCatalogue1763800300000 } from './1763800300000-CreateCatalogue';
import { CreateTicketsAndSla1763800400000 } from './1763800400000-CreateTicketsAndSla';
import { ConversationInbox1763800500000 } from './1763800500000-ConversationInbox';
import { SearchExtensionsAndAiState1763900000000 } from './1763900000000-SearchExtensionsAndAiState';
import { ChannelReplyTokens1763900100000 } from './1763900100000-ChannelReplyTokens';
import { InboundEventRawBody1763909000000 } from './1763909000000-InboundEventRawBody';
import { EventOutboxAndWebhooks1763911000000 } from './1763911000000-EventOutboxAndWebhooks';
import { CreateAutomations1763912000000 } from './1763912000000-CreateAutomations';
import { AiAgentsAndCatalogSearch1763913000000 } from './1763913000000-AiAgentsAndCatalogSearch';
import { AnalyticsAndCsat1763914000000 } from './1763914000000-AnalyticsAndCsat';
import { TrigramSearchIndexes1763916000000 } from './1763916000000-TrigramSearchIndexes';
import { AgentWordIndex1764001000000 } from './1764001000000-AgentWordIndex';
import { AgentWordIndexPendingList1764001050000 } from './1764001050000-AgentWordIndexPendingList';
import { OutboundOrderIndex1764001100000 } from './1764001100000-OutboundOrderIndex';
import { AnalyticsMessageSlots1764002000000 } from './1764002000000-AnalyticsMessageSlots';
import { AnalyticsMessageSlotShards1764002100000 } from './1764002100000-AnalyticsMessageSlotShards';
import { RoutingAndTicketNumbersWithoutHotRows1764003000000 } from './1764003000000-RoutingAndTicketNumbersWithoutHotRows';
import { ConversationSlaDueCopy1764003200000 } from './1764003200000-ConversationSlaDueCopy';
import { AnalyticsResolvedConversationIds1764004000000 } from './1764004000000-AnalyticsResolvedConversationIds';
import { AnalyticsAiSenderIndexChannel1764004050000 } from './1764004050000-AnalyticsAiSenderIndexChannel';
import { SearchIndexPendingLists1764004100000 } from './1764004100000-SearchIndexPendingLists';
import { AgentSeatClaims1764005000000 } from './1764005000000-AgentSeatClaims';
import { CatalogImportChunks1764400100000 } from './1764400100000-CatalogImportChunks';
import { PipelineWriteContention1764500000000 } from './1764500000000-PipelineWriteContention';
import { AutomationRunsWithoutRowChecks1764600000000 } from './1764600000000-AutomationRunsWithoutRowChecks';
import { AutomationSkips1764700000000 } from './1764700000000-AutomationSkips';
import { OutboundPendingByCreation1764800000000 } from './1764800000000-OutboundPendingByCreation';
import { WebhookDeliveriesByWebhook1764900000000 } from './1764900000000-WebhookDeliveriesByWebhook';

/** Every migration, in order. A new migration file is added here as well. */
export const MIGRATIONS = [
  CreateIdentity1763800000000,
  CreateContacts1763800100000,
  CreateChannels1763800200000,
  CreateRouting1763800200100,
  CreateInbox1763800200200,
  CreateCatalogue1763800300000,
  CreateTicketsAndSla1763800400000,
  ConversationInbox1763800500000,
  SearchExtensionsAndAiState1763900000000,
  ChannelReplyTokens1763900100000,
  InboundEventRawBody1763909000000,
  EventOutboxAndWebhooks1763911000000,
  CreateAutomations1763912000000,
  AiAgentsAndCatalogSearch1763913000000,
  AnalyticsAndCsat1763914000000,
  TrigramSearchIndexes1763916000000,
  AgentWordIndex1764001000000,
  AgentWordIndexPendingList1764001050000,
  OutboundOrderIndex1764001100000,
  AnalyticsMessageSlots1764002000000,
  AnalyticsMessageSlotShards1764002100000,
  RoutingAndTicketNumbersWithoutHotRows1764003000000,
  ConversationSlaDueCopy1764003200000,
  AnalyticsResolvedConversationIds1764004000000,
  AnalyticsAiSenderIndexChannel1764004050000,
  SearchIndexPendingLists1764004100000,
  AgentSeatClaims1764005000000,
  CatalogImportChunks1764400100000,
  PipelineWriteContention1764500000000,
  AutomationRunsWithoutRowChecks1764600000000,
  AutomationSkips1764700000000,
  OutboundPendingByCreation1764800000000,
  WebhookDeliveriesByWebhook1764900000000,
];
