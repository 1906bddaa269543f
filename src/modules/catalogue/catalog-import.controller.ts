import { Body, Controller, Get, Header, HttpCode, Param, Post, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiTags,
  ApiOperation,
} from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { CatalogImportService, IMPORT_LIMITS, type UploadedCsv } from './catalog-import.service';
import { GzipUploadStorage } from './csv/csv-reader.util';
import {
  ImportCommitDto,
  ImportCommitResponse,
  ImportMappingDto,
  ImportPreviewResponse,
  ImportUploadDto,
} from './dto/import.dto';

@ApiTags('catalogue import')
@Controller('catalog/import')
export class CatalogImportController {
  constructor(private readonly imports: CatalogImportService) {}

  @Get('template')
  @RequirePermission('catalog.manage')
  @Header('content-type', 'text/csv; charset=utf-8')
  @Header('content-disposition', 'attachment; filename="catalogue-template.csv"')
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'A CSV with the columns the import understands' })
  @ApiOperation({ summary: 'Download the catalogue CSV template' })
  template(): string {
    return this.imports.template();
  }

  @Post('preview')
  @RequirePermission('catalog.manage')
  @HttpCode(201)
  @UseInterceptors(
    FileInterceptor('file', {
      storage: new GzipUploadStorage(),
      limits: { fileSize: IMPORT_LIMITS.maxFileBytes, files: 1, fields: 5 },
    }),
  )
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: { type: 'string', format: 'binary' },
        mapping: { type: 'string', description: 'JSON {header: field | null}' },
      },
    },
  })
  @ApiCreatedResponse({ type: ImportPreviewResponse, description: 'Nothing is saved to the catalogue yet' })
  @ApiPayloadTooLargeResponse({ description: 'Over 50 MB or 100,000 products' })
  @ApiOperation({ summary: 'Upload a catalogue CSV and preview the mapping' })
  preview(
    @CurrentCtx() ctx: TenantContext,
    @UploadedFile() file: UploadedCsv | undefined,
    @Body() body: ImportUploadDto,
  ): Promise<ImportPreviewResponse> {
    return this.imports.preview(ctx, file, body.mapping);
  }

  @Post(':id/preview')
  @RequirePermission('catalog.manage')
  @HttpCode(200)
  @ApiOkResponse({ type: ImportPreviewResponse })
  @ApiOperation({ summary: 'Preview an uploaded catalogue CSV with another mapping' })
  repreview(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: ImportMappingDto,
  ): Promise<ImportPreviewResponse> {
    return this.imports.repreview(ctx, id, dto.mapping);
  }

  @Post(':id/commit')
  @RequirePermission('catalog.manage')
  @HttpCode(200)
  @ApiOkResponse({ type: ImportCommitResponse })
  @ApiOperation({ summary: 'Import an uploaded catalogue CSV' })
  commit(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: ImportCommitDto,
  ): Promise<ImportCommitResponse> {
    return this.imports.commit(ctx, id, dto.mapping);
  }
}
