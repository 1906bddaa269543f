import { Module } from '@nestjs/common';
import { DatabaseModule } from 'src/core/database/database.module';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsRepository } from './analytics.repository';
import { AnalyticsService } from './analytics.service';
import { DashboardEntity } from './dashboard.entity';
import { DashboardsController } from './dashboards.controller';
import { DashboardsRepository } from './dashboards.repository';
import { DashboardsService } from './dashboards.service';
import { ReportsController } from './reports.controller';
import { ReportsRepository } from './reports.repository';
import { ReportsService } from './reports.service';

/**
 * Analytics, dashboards and reports: a read model over the stored facts of the other modules
 * (their tables, read with SQL by this module's repositories; nothing imported from them). It owns
 * only `analytics_dashboards`.
 */
@Module({
  imports: [DatabaseModule.forEntities([DashboardEntity])],
  controllers: [AnalyticsController, DashboardsController, ReportsController],
  providers: [
    AnalyticsRepository,
    AnalyticsService,
    DashboardsRepository,
    DashboardsService,
    ReportsRepository,
    ReportsService,
  ],
  exports: [AnalyticsService],
})
export class AnalyticsModule {}
