import { Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppException } from 'src/core/errors/app.exception';
import { validationException } from 'src/core/errors/validation-errors';
import { MAX_IMAGES, MAX_TEXT, isHttpUrl } from '../csv/csv-cells.util';
import { FEED_FIELDS, FEED_MAX_ITEMS, FeedItemDto, FeedUpsertDto } from './feed.dto';
import { isCatalogPrice } from './validators';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ITEM_KEYS: ReadonlySet<string> = new Set(['id', ...FEED_FIELDS]);

function optionalText(value: unknown, max: number): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.length <= max);
}

/**
 * True only when the item certainly passes FeedItemDto's rules (catalog-item-fields.dto.ts): known
 * fields, `id` a non-empty text, `name` absent or a non-empty text, the other texts absent, null or
 * short enough, a price of 0 or more or a non-empty text, a whole stock of 0 or more, http(s) images.
 * It never accepts what those rules reject (lengths are counted in UTF-16 units, which is never
 * fewer than class-validator counts); anything it does not accept goes through class-validator,
 * which names the problem. A feed of 500 valid items then costs a loop instead of class-transformer
 * and class-validator walking 500 instances (≈ 20–40 ms of CPU per request, issue 16 item 5).
 */
export function plainlyValidFeedItem(item: Record<string, unknown>): boolean {
  for (const key of Object.keys(item)) if (!ITEM_KEYS.has(key)) return false;
  const { id, name, price, stock, images } = item;
  return (
    typeof id === 'string' &&
    id.length > 0 &&
    id.length <= MAX_TEXT.id &&
    (name === undefined || (typeof name === 'string' && name.length > 0 && name.length <= MAX_TEXT.name)) &&
    (price === undefined || price === null || isCatalogPrice(price)) &&
    optionalText(item.currency, MAX_TEXT.currency) &&
    optionalText(item.description, MAX_TEXT.description) &&
    optionalText(item.sku, MAX_TEXT.sku) &&
    optionalText(item.category, MAX_TEXT.category) &&
    (stock === undefined || stock === null || (typeof stock === 'number' && Number.isInteger(stock) && stock >= 0)) &&
    (images === undefined ||
      images === null ||
      (Array.isArray(images) &&
        images.length <= MAX_IMAGES &&
        images.every((url) => typeof url === 'string' && isHttpUrl(url))))
  );
}

/**
 * The feed body: the item count is checked before any item is looked at (> 500 → 413, DESIGN §12),
 * then every item is validated with the global pipe's rules, naming the item (`items.3.price …`),
 * and ids must be unique within the request. The parameter is typed `unknown` so the global
 * ValidationPipe leaves the body to this pipe.
 */
@Injectable()
export class FeedItemsPipe implements PipeTransform<unknown, FeedUpsertDto> {
  transform(value: unknown): FeedUpsertDto {
    if (!isRecord(value) || !Array.isArray(value.items))
      throw AppException.field('items', `must be an array of 1 to ${FEED_MAX_ITEMS} items`);
    const count = value.items.length;
    if (count > FEED_MAX_ITEMS) {
      throw AppException.tooLarge(
        `items: at most ${FEED_MAX_ITEMS} items per request (got ${count}); send them in several requests`,
      );
    }
    if (count === 0) throw AppException.field('items', `must contain 1 to ${FEED_MAX_ITEMS} items`);
    const items: unknown[] = value.items;
    const notObject = items.findIndex((item) => !isRecord(item));
    if (notObject >= 0) throw AppException.field(`items.${notObject}`, 'must be an object with an id');
    const dto = this.plainlyValid(value, items) ?? this.validated(value);
    const seen = new Map<string, number>();
    dto.items.forEach((item, index) => {
      const first = seen.get(item.id);
      if (first !== undefined)
        throw AppException.field(
          `items.${index}.id`,
          `repeats items.${first}.id ("${item.id}"): each id once per request`,
        );
      seen.set(item.id, index);
    });
    return dto;
  }

  /** The usual body, built without class-transformer and class-validator; null when anything is unusual. */
  private plainlyValid(body: Record<string, unknown>, items: unknown[]): FeedUpsertDto | null {
    if (Object.keys(body).length !== 1) return null;
    const dtos: FeedItemDto[] = [];
    for (const item of items) {
      if (!isRecord(item) || !plainlyValidFeedItem(item)) return null;
      dtos.push(Object.assign(new FeedItemDto(), item));
    }
    return Object.assign(new FeedUpsertDto(), { items: dtos });
  }

  private validated(body: Record<string, unknown>): FeedUpsertDto {
    const dto = plainToInstance(FeedUpsertDto, body);
    const errors = validateSync(dto, { whitelist: true, forbidNonWhitelisted: true });
    if (errors.length > 0) throw validationException(errors);
    return dto;
  }
}
