import { Controller, Get, Param, Query, Res, StreamableFile } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import {
  ReportDefinitionListResponse,
  ReportDefinitionResponse,
  ReportExportQuery,
  ReportKeyParam,
  ReportQuery,
  ReportResponse,
} from './dto/report.dto';
import { ReportsService } from './reports.service';

@ApiTags('reports')
@Controller('reports')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Get()
  @RequirePermission('reports.view')
  @ApiOperation({ summary: 'Report definitions: key, name, description, columns' })
  @ApiOkResponse({ type: ReportDefinitionListResponse })
  list(): { data: ReportDefinitionResponse[] } {
    return this.reports.definitions();
  }

  @Get(':key')
  @RequirePermission('reports.view')
  @ApiOperation({ summary: 'A page of report rows (newest first, keyset-paged with nextCursor)' })
  @ApiOkResponse({ type: ReportResponse })
  @ApiNotFoundResponse({ description: 'Unknown report key' })
  run(
    @CurrentCtx() ctx: TenantContext,
    @Param() { key }: ReportKeyParam,
    @Query() query: ReportQuery,
  ): Promise<ReportResponse> {
    return this.reports.run(ctx, key, query);
  }

  @Get(':key/export')
  @RequirePermission('reports.export')
  @ApiOperation({ summary: 'The whole report as CSV, streamed from a database cursor (constant memory)' })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'text/csv; charset=utf-8 with a Content-Disposition filename' })
  @ApiNotFoundResponse({ description: 'Unknown report key' })
  async export(
    @CurrentCtx() ctx: TenantContext,
    @Param() { key }: ReportKeyParam,
    @Query() query: ReportExportQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    const { filename, stream } = await this.reports.exportCsv(ctx, key, query);
    res.setHeader('x-content-type-options', 'nosniff');
    return new StreamableFile(stream, {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="${filename}"`,
    });
  }
}
