import { Body, Controller, HttpCode, Post, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiPayloadTooLargeResponse,
  ApiTags,
  ApiOperation,
} from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ContactImportService, type UploadedCsv } from './contact-import.service';
import { IMPORT_MAX_FILE_BYTES } from './contacts.constants';
import { ImportContactsDto, ImportContactsResponse } from './dto/import.dto';

@ApiTags('contacts')
@Controller('contacts/import')
export class ContactImportController {
  constructor(private readonly imports: ContactImportService) {}

  @Post()
  @RequirePermission('contacts.import')
  @HttpCode(200)
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: IMPORT_MAX_FILE_BYTES, files: 1, fields: 10 } }))
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: {
          type: 'string',
          format: 'binary',
          description: 'CSV, UTF-8 (BOM tolerated), comma, semicolon or tab separated',
        },
        mapping: {
          type: 'string',
          description: 'JSON {"<header>": "name"|"email"|"phone"|"company"|"tags"|"avatarUrl"|"<field key>"|null}',
        },
        dryRun: { type: 'boolean', description: 'Report without writing' },
      },
    },
  })
  @ApiOkResponse({ type: ImportContactsResponse })
  @ApiPayloadTooLargeResponse({ description: 'The file is over 20 MB' })
  @ApiOperation({ summary: 'Import contacts from a CSV file' })
  import(
    @CurrentCtx() ctx: TenantContext,
    @UploadedFile() file: UploadedCsv | undefined,
    @Body() dto: ImportContactsDto,
  ): Promise<ImportContactsResponse> {
    return this.imports.import(ctx, file, dto);
  }
}
