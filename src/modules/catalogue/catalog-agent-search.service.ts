import { Injectable } from '@nestjs/common';
import { CacheInvalidation, TopicCache } from 'src/core/events/cache-invalidation';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import {
  type AgentSearchQuestion,
  type AgentSearchRow,
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
  /** Per workspace: whether it has an item on sale (invalidated by every catalogue write, in any process). */
  private readonly onSale: TopicCache<boolean>;

  constructor(
    private readonly repository: CatalogAgentSearchRepository,
    invalidation: CacheInvalidation,
  ) {
    this.onSale = new TopicCache(invalidation, 'catalogue');
  }

  /**
   * Whether the caller's workspace has an item on sale, i.e. whether a search can find anything
   * (issue 16: most workspaces have no catalogue, and the search statement costs a plan per call).
   * From memory while cross-process invalidation is up; otherwise one indexed EXISTS.
   */
  hasItemsOnSale(): Promise<boolean> {
    return this.onSale.get(getTenantContext().workspaceId, () => this.repository.hasItemsOnSale());
  }

  /**
   * Items matching any of each question's words or SKUs, best first, each with how it matched: one
   * list per question, in order, all in one statement (a pipeline group's questions; issue 16 item
   * 3), each list exactly what the question finds when asked alone.
   */
  async searchMany(questions: readonly AgentSearchQuestion[], limit = 40): Promise<AgentSearchRow[][]> {
    if (questions.every((q) => q.terms.length === 0 && q.skus.length === 0)) return questions.map(() => []);
    if (!(await this.hasItemsOnSale())) return questions.map(() => []);
    return this.repository.searchMany(questions, limit);
  }
}
