import { Module } from '@nestjs/common';
import { CatalogFeedController } from './catalog-feed.controller';
import { CatalogImportController } from './catalog-import.controller';
import { CatalogImportService } from './catalog-import.service';
import { CatalogImportsRepository } from './catalog-imports.repository';
import { CatalogFeedService } from './catalog-feed.service';
import { CatalogItemsController } from './catalog-items.controller';
import { CatalogItemsRepository } from './catalog-items.repository';
import { CatalogItemsService } from './catalog-items.service';

@Module({
  // Order matters: Express matches in registration order, and `/catalog/:id` would shadow `/catalog/websites`.
  controllers: [CatalogFeedController, CatalogImportController, CatalogItemsController],
  providers: [
    CatalogItemsRepository,
    CatalogItemsService,
    CatalogFeedService,
    CatalogImportsRepository,
    CatalogImportService,
  ],
  exports: [CatalogItemsService],
})
export class CatalogueModule {}
