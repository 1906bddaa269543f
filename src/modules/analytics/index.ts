/** What other modules may use from the analytics module (the top layer: nothing imports it today). */
export { AnalyticsModule } from './analytics.module';
export { AnalyticsService } from './analytics.service';
export { ANALYTICS_SOURCES, WIDGET_TYPES } from './analytics-meta';
