import { Injectable } from '@nestjs/common';
import {
  type AgentSearchRow,
  type AgentSearchTerm,
  CatalogAgentSearchRepository,
} from './catalog-agent-search.repository';

/**
 * The catalogue as the AI agent searches it (DESIGN §9): candidates and their per-word matches,
 * computed by the database in one statement (an unaccented word index, Levenshtein against the
 * workspace's vocabulary, trigram similarity). Deciding what the customer meant is the agent's job;
 * this only says what matches what. Joins the caller's transaction.
 */
@Injectable()
export class CatalogAgentSearch {
  constructor(private readonly repository: CatalogAgentSearchRepository) {}

  /** Items matching any of the words or SKUs, best first, each with how it matched. */
  search(terms: readonly AgentSearchTerm[], skus: readonly string[], limit = 40): Promise<AgentSearchRow[]> {
    return this.repository.search(terms, skus, limit);
  }
}
