import { DatabaseModule } from 'src/core/database/database.module';
import { CatalogImportEntity } from './catalog-import.entity';
import { CatalogItemEntity } from './catalog-item.entity';
import { CatalogWebsiteRunEntity } from './catalog-website-run.entity';
import { CatalogWebsiteEntity } from './catalog-website.entity';
import { Module } from '@nestjs/common';
import { CatalogAgentSearchRepository } from './catalog-agent-search.repository';
import { CatalogAgentSearch } from './catalog-agent-search.service';
import { CatalogFeedController } from './catalog-feed.controller';
import { CatalogFeedService } from './catalog-feed.service';
import { CatalogImportController } from './catalog-import.controller';
import { CatalogImportService } from './catalog-import.service';
import { CatalogImportsRepository } from './catalog-imports.repository';
import { CatalogItemsController } from './catalog-items.controller';
import { CatalogItemsRepository } from './catalog-items.repository';
import { CatalogItemsService } from './catalog-items.service';
import { CatalogWebsiteRunsRepository } from './catalog-website-runs.repository';
import { CatalogWebsitesController } from './catalog-websites.controller';
import { CatalogWebsitesRepository } from './catalog-websites.repository';
import { CatalogWebsitesService } from './catalog-websites.service';
import { CatalogueScheduler } from './catalogue.scheduler';
import { CatalogueSystemRepository } from './catalogue-system.repository';
import { CatalogWebsiteSyncJob } from './jobs/catalog-website-sync.job';
import { WebsiteSyncService } from './website-sync.service';
import { WebsiteFetcher } from './website/website-fetcher.service';

@Module({
  imports: [
    DatabaseModule.forEntities([CatalogImportEntity, CatalogItemEntity, CatalogWebsiteRunEntity, CatalogWebsiteEntity]),
  ],
  // Order matters: Express matches routes in registration order, and `/catalog/:id` (items) would
  // otherwise shadow `/catalog/websites`, so the items controller comes last.
  controllers: [CatalogFeedController, CatalogImportController, CatalogWebsitesController, CatalogItemsController],
  providers: [
    CatalogAgentSearchRepository,
    CatalogAgentSearch,
    CatalogItemsRepository,
    CatalogImportsRepository,
    CatalogWebsitesRepository,
    CatalogWebsiteRunsRepository,
    CatalogueSystemRepository,
    CatalogItemsService,
    CatalogFeedService,
    CatalogImportService,
    CatalogWebsitesService,
    WebsiteSyncService,
    WebsiteFetcher,
    CatalogWebsiteSyncJob,
    CatalogueScheduler,
  ],
  exports: [CatalogItemsService, CatalogAgentSearch],
})
export class CatalogueModule {}
