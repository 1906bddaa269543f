import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { type CursorPaginationQuery, type Page, mapPage } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { ContactFieldEntity } from './contact-field.entity';
import { ContactFieldsRepository, MAX_FIELD_DEFINITIONS } from './contact-fields.repository';
import { ContactsRepository } from './contacts.repository';
import {
  type CheckOptions,
  type CustomFieldType,
  type CustomFieldValue,
  checkCustomFields,
} from './custom-fields.util';
import {
  type ContactFieldResponse,
  type CreateContactFieldDto,
  type UpdateContactFieldDto,
  toContactFieldResponse,
} from './dto/contact-field.dto';

/** Custom field definitions, and the validation of contact values against them. */
@Injectable()
export class ContactFieldsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly fields: ContactFieldsRepository,
    private readonly contacts: ContactsRepository,
  ) {}

  async list(_ctx: TenantContext, query: CursorPaginationQuery): Promise<Page<ContactFieldResponse>> {
    return mapPage(await this.fields.findPage(query), toContactFieldResponse);
  }

  async create(_ctx: TenantContext, dto: CreateContactFieldDto): Promise<ContactFieldResponse> {
    const options = checkOptions(dto.type, dto.options);
    if ((await this.fields.count()) >= MAX_FIELD_DEFINITIONS) {
      throw AppException.conflict(`A workspace can have at most ${MAX_FIELD_DEFINITIONS} custom fields`);
    }
    const row = await this.fields.create({
      key: dto.key,
      label: dto.label,
      type: dto.type,
      options,
      required: dto.required ?? false,
    });
    return toContactFieldResponse(row);
  }

  /** Label, options and required can change; existing values are kept as they are. */
  async update(_ctx: TenantContext, id: string, dto: UpdateContactFieldDto): Promise<ContactFieldResponse> {
    const current = await this.fields.getById(id);
    const patch: Partial<Pick<ContactFieldEntity, 'label' | 'options' | 'required'>> = {};
    if (dto.label !== undefined) patch.label = dto.label;
    if (dto.options !== undefined) patch.options = checkOptions(current.type, dto.options);
    if (dto.required !== undefined) patch.required = dto.required;
    return toContactFieldResponse(await this.fields.updateById(id, patch));
  }

  /** Deletes the definition and, in the same transaction, its value on every contact. */
  remove(_ctx: TenantContext, id: string): Promise<void> {
    return this.tx.run(async () => {
      const key = await this.fields.deleteReturningKey(id);
      await this.contacts.removeCustomFieldValues(key);
    });
  }

  definitions(): Promise<ContactFieldEntity[]> {
    return this.fields.findAll();
  }

  /** Validates contact values; any problem → 400 `validation_failed` naming each field. */
  async check(
    input: Readonly<Record<string, unknown>>,
    options: CheckOptions,
  ): Promise<Record<string, CustomFieldValue | null>> {
    const definitions = await this.definitions();
    const { values, errors } = checkCustomFields(input, definitions, options);
    const first = errors[0];
    if (first) throw AppException.validation(`${first.field} ${first.message}`, errors);
    return values;
  }
}

function checkOptions(type: CustomFieldType, options: readonly string[] | undefined): string[] {
  const cleaned = (options ?? []).map((o) => o.trim());
  if (type === 'SELECT' && cleaned.length === 0)
    throw AppException.field('options', 'must list at least one option for a SELECT field');
  if (type !== 'SELECT' && cleaned.length > 0) throw AppException.field('options', 'are only allowed on SELECT fields');
  if (new Set(cleaned).size !== cleaned.length) throw AppException.field('options', 'must be unique');
  return cleaned;
}
