import { Module } from '@nestjs/common';
import { CatalogFeedController } from './catalog-feed.controller';
import { CatalogFeedService } from './catalog-feed.service';
import { CatalogItemsController } from './catalog-items.controller';
import { CatalogItemsRepository } from './catalog-items.repository';
import { CatalogItemsService } from './catalog-items.service';

@Module({
  // Order matters: Express matches in registration order, and `/catalog/:id` would shadow `/catalog/websites`.
  controllers: [CatalogFeedController, CatalogItemsController],
  providers: [CatalogItemsRepository, CatalogItemsService, CatalogFeedService],
  exports: [CatalogItemsService],
})
export class CatalogueModule {}
