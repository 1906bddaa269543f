/** What other modules may use of the catalogue (STYLE §1: no deep imports). */
export { type AgentCatalogItem, renderItemForAgent } from './agent-text.util';
export { formatPriceDisplay } from './price.util';
export type { CatalogItemStatus, CatalogPrice } from './catalog-item.entity';
export type { CatalogItemResponse } from './dto/catalog-item.dto';
export { CatalogueModule } from './catalogue.module';
export { CatalogItemsService } from './catalog-items.service';
export { CatalogAgentSearch } from './catalog-agent-search.service';
export type {
  AgentSearchHit,
  AgentSearchQuestion,
  AgentSearchRow,
  AgentSearchTerm,
} from './catalog-agent-search.repository';
