import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { CursorPaginationQuery } from 'src/core/http/pagination';
import type { CatalogWebsiteRunEntity, WebsiteRunStatus, WebsiteRunTrigger } from '../catalog-website-run.entity';
import {
  type CatalogWebsiteEntity,
  type ConcreteWebsiteFormat,
  MAX_INTERVAL_MINUTES,
  MIN_INTERVAL_MINUTES,
  WEBSITE_FORMATS,
  type WebsiteFormat,
  type WebsiteStatus,
  type WebsiteSyncStatus,
} from '../catalog-website.entity';

/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible characters and spaces, no line breaks (no header injection). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\uffff]*$/;
const upper = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.toUpperCase() : value);

export class CreateWebsiteDto {
  @ApiProperty({ example: 'Our shop' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly name: string;

  @ApiProperty({
    example: 'https://shop.example.com/wp-json/wc/store/v1/products?page={page}',
    description: 'Product list link; {page} marks where the page number goes (1, 2, …)',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  readonly url: string;

  @ApiPropertyOptional({
    example: 'X-Api-Key',
    description: 'Header sent with every request, for a link that needs a key',
    nullable: true,
    type: String,
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(HEADER_NAME, { message: 'must be a valid HTTP header name' })
  readonly keyHeaderName?: string | null;

  @ApiPropertyOptional({ description: 'Stored encrypted, never shown again' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  @Matches(HEADER_VALUE, { message: 'must not contain line breaks or control characters' })
  readonly keyHeaderValue?: string;

  @ApiProperty({ minimum: MIN_INTERVAL_MINUTES, maximum: MAX_INTERVAL_MINUTES, example: 60 })
  @IsInt()
  @Min(MIN_INTERVAL_MINUTES)
  @Max(MAX_INTERVAL_MINUTES)
  readonly intervalMinutes: number;

  @ApiPropertyOptional({ enum: WEBSITE_FORMATS, default: 'AUTO' })
  @IsOptional()
  @Transform(upper)
  @IsIn(WEBSITE_FORMATS)
  readonly format?: WebsiteFormat;
}

/** Only the fields sent change. `keyHeaderName: null` removes the key header. */
export class UpdateWebsiteDto {
  @ApiPropertyOptional()
  @ValidateIf((o: UpdateWebsiteDto) => o.name !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly name?: string;

  @ApiPropertyOptional()
  @ValidateIf((o: UpdateWebsiteDto) => o.url !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  readonly url?: string;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(HEADER_NAME, { message: 'must be a valid HTTP header name' })
  readonly keyHeaderName?: string | null;

  @ApiPropertyOptional()
  @ValidateIf((o: UpdateWebsiteDto) => o.keyHeaderValue !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  @Matches(HEADER_VALUE, { message: 'must not contain line breaks or control characters' })
  readonly keyHeaderValue?: string;

  @ApiPropertyOptional({ minimum: MIN_INTERVAL_MINUTES, maximum: MAX_INTERVAL_MINUTES })
  @ValidateIf((o: UpdateWebsiteDto) => o.intervalMinutes !== undefined)
  @IsInt()
  @Min(MIN_INTERVAL_MINUTES)
  @Max(MAX_INTERVAL_MINUTES)
  readonly intervalMinutes?: number;

  @ApiPropertyOptional({ enum: WEBSITE_FORMATS })
  @ValidateIf((o: UpdateWebsiteDto) => o.format !== undefined)
  @Transform(upper)
  @IsIn(WEBSITE_FORMATS)
  readonly format?: WebsiteFormat;
}

export class SyncWebsiteDto {
  @ApiPropertyOptional({ description: 'Let this one run take more than half of the products off sale', default: false })
  @IsOptional()
  @IsBoolean()
  readonly confirmOffSale?: boolean;
}

export class ListWebsitesQuery extends CursorPaginationQuery {
  @ApiPropertyOptional({ enum: ['ACTIVE', 'DISCONNECTED'] })
  @IsOptional()
  @Transform(upper)
  @IsIn(['ACTIVE', 'DISCONNECTED'])
  readonly status?: WebsiteStatus;
}

export class WebsiteResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly name: string;
  @ApiProperty() readonly url: string;
  @ApiProperty({ enum: WEBSITE_FORMATS }) readonly format: WebsiteFormat;
  @ApiProperty({
    nullable: true,
    enum: ['GENERIC', 'SHOPIFY', 'WOOCOMMERCE'],
    description: 'What AUTO recognised at the last sync',
  })
  readonly detectedFormat: ConcreteWebsiteFormat | null;
  @ApiProperty({ nullable: true, type: String }) readonly keyHeaderName: string | null;
  @ApiProperty({ description: 'Whether a key header value is stored (it is never shown)' })
  readonly keyHeaderConfigured: boolean;
  @ApiProperty() readonly intervalMinutes: number;
  @ApiProperty({ enum: ['ACTIVE', 'DISCONNECTED'] }) readonly status: WebsiteStatus;
  @ApiProperty({ nullable: true, type: String }) readonly lastSyncAt: string | null;
  @ApiProperty({ nullable: true, enum: ['SUCCESS', 'FAILED', 'GUARD_STOPPED'] })
  readonly lastSyncStatus: WebsiteSyncStatus | null;
  @ApiProperty({ nullable: true, type: String }) readonly lastSyncMessage: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly nextSyncAt: string | null;
  @ApiProperty() readonly createdAt: string;
}

export class SyncStartedResponse {
  @ApiProperty({ format: 'uuid' }) readonly runId: string;
}

export class WebsiteRunResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ format: 'uuid' }) readonly websiteId: string;
  @ApiProperty({ enum: ['SCHEDULE', 'MANUAL'] }) readonly trigger: WebsiteRunTrigger;
  @ApiProperty({ enum: ['RUNNING', 'SUCCESS', 'FAILED', 'GUARD_STOPPED'] }) readonly status: WebsiteRunStatus;
  @ApiProperty() readonly startedAt: string;
  @ApiProperty({ nullable: true, type: String }) readonly finishedAt: string | null;
  @ApiProperty() readonly pages: number;
  @ApiProperty() readonly fetched: number;
  @ApiProperty() readonly created: number;
  @ApiProperty() readonly updated: number;
  @ApiProperty() readonly offSale: number;
  @ApiProperty() readonly restored: number;
  @ApiProperty() readonly unchanged: number;
  @ApiProperty({ nullable: true, type: String }) readonly message: string | null;
}

export function toWebsiteResponse(w: CatalogWebsiteEntity): WebsiteResponse {
  return {
    id: w.id,
    name: w.name,
    url: w.url,
    format: w.format,
    detectedFormat: w.detectedFormat,
    keyHeaderName: w.keyHeaderName,
    keyHeaderConfigured: w.keyHeaderValue !== null,
    intervalMinutes: w.intervalMinutes,
    status: w.status,
    lastSyncAt: w.lastSyncAt?.toISOString() ?? null,
    lastSyncStatus: w.lastSyncStatus,
    lastSyncMessage: w.lastSyncMessage,
    nextSyncAt: w.nextSyncAt?.toISOString() ?? null,
    createdAt: w.createdAt.toISOString(),
  };
}

export function toWebsiteRunResponse(r: CatalogWebsiteRunEntity): WebsiteRunResponse {
  return {
    id: r.id,
    websiteId: r.websiteId,
    trigger: r.trigger,
    status: r.status,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
    pages: r.pages,
    fetched: r.fetched,
    created: r.created,
    updated: r.updated,
    offSale: r.offSale,
    restored: r.restored,
    unchanged: r.unchanged,
    message: r.message,
  };
}
