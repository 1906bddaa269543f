import { ValidateBy, type ValidationOptions } from 'class-validator';
import { MAX_URL_LENGTH, isHttpUrl } from '../csv/csv-cells.util';

export const MAX_PRICE_TEXT = 100;

/** A price as SPEC §2 allows it: a finite number of 0 or more, or a non-empty string (kept verbatim). */
export function isCatalogPrice(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0;
  if (typeof value === 'string') return value.trim().length > 0 && value.length <= MAX_PRICE_TEXT;
  return false;
}

export function IsCatalogPrice(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isCatalogPrice',
      validator: {
        validate: (value: unknown): boolean => isCatalogPrice(value),
        defaultMessage: () =>
          `must be a number of 0 or more or a non-empty text of at most ${MAX_PRICE_TEXT} characters`,
      },
    },
    options,
  );
}

/** Every element is an http(s) URL (the same rule the CSV import applies to image cells). */
export function IsHttpUrlEach(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isHttpUrlEach',
      validator: {
        validate: (value: unknown): boolean =>
          Array.isArray(value) && value.every((v) => typeof v === 'string' && isHttpUrl(v)),
        defaultMessage: () => `must contain only http(s) URLs of at most ${MAX_URL_LENGTH} characters`,
      },
    },
    options,
  );
}
