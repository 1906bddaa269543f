import { Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppException } from 'src/core/errors/app.exception';
import { validationException } from 'src/core/errors/validation-errors';
import { FEED_MAX_ITEMS, FeedUpsertDto } from './feed.dto';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
    const notObject = value.items.findIndex((item) => !isRecord(item));
    if (notObject >= 0) throw AppException.field(`items.${notObject}`, 'must be an object with an id');
    const dto = plainToInstance(FeedUpsertDto, value);
    const errors = validateSync(dto, { whitelist: true, forbidNonWhitelisted: true });
    if (errors.length > 0) throw validationException(errors);
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
}
