import { ApiProperty } from '@nestjs/swagger';

class MetricMeta {
  @ApiProperty({ example: 'conversations.new', description: 'Path into the source’s answer' }) readonly key: string;
  @ApiProperty() readonly description: string;
  @ApiProperty({ enum: ['value', 'series', 'breakdown'] }) readonly shape: string;
  @ApiProperty({ enum: ['count', 'seconds', 'rate', 'score'] }) readonly unit: string;
}
class SourceMeta {
  @ApiProperty({ example: 'summary' }) readonly key: string;
  @ApiProperty({ example: '/analytics/summary' }) readonly path: string;
  @ApiProperty() readonly description: string;
  @ApiProperty({ type: [MetricMeta] }) readonly metrics: MetricMeta[];
}
class WidgetTypeMeta {
  @ApiProperty({ enum: ['METRIC', 'TIMESERIES', 'TABLE', 'BAR'] }) readonly type: string;
  @ApiProperty({ type: [String], description: 'Metric shapes this widget type can show' }) readonly shapes: string[];
}
export class AnalyticsMetaResponse {
  @ApiProperty({ type: [String] }) readonly interval: string[];
  @ApiProperty() readonly maxBuckets: number;
  @ApiProperty({ type: [String] }) readonly filters: string[];
  @ApiProperty({ type: [WidgetTypeMeta] }) readonly widgetTypes: WidgetTypeMeta[];
  @ApiProperty({ type: [SourceMeta] }) readonly sources: SourceMeta[];
}
