import type { ValidationError } from 'class-validator';
import { AppException, type ErrorDetail } from './app.exception';

/**
 * The message of one field, without the field name (the `field` column says it):
 * - a missing value (undefined) on a field that is not optional → "is required", whatever rule
 *   class-validator happened to report first (it used to say "must be shorter than …");
 * - an unknown field (whitelist) → "is not an allowed field";
 * - otherwise the top-most decorator's message (declared first, checked last: usually the type),
 *   with the field name and class-validator's "each value in <field>" prefix removed.
 */
function messageOf(error: ValidationError): string | undefined {
  const constraints = error.constraints ?? {};
  const keys = Object.keys(constraints);
  if (keys.length === 0) return undefined;
  if ('whitelistValidation' in constraints) return 'is not an allowed field';
  if (error.value === undefined) return 'is required';
  let message = Object.values(constraints).pop()!;
  const property = error.property;
  if (message.startsWith(`${property} `)) message = message.slice(property.length + 1);
  if (message.startsWith(`each value in ${property} `))
    message = `each value ${message.slice(`each value in ${property} `.length)}`;
  return message;
}

/** Flattens class-validator's tree into `{field: "items.3.id", message}` rows. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): ErrorDetail[] {
  const rows: ErrorDetail[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const message = messageOf(error);
    if (message !== undefined) rows.push({ field, message });
    if (error.children?.length) rows.push(...flattenValidationErrors(error.children, field));
  }
  return rows;
}

export function validationException(errors: ValidationError[]): AppException {
  const details = flattenValidationErrors(errors);
  const first = details[0];
  const message = first ? `${first.field} ${first.message}` : 'Validation failed';
  return AppException.validation(message, details);
}
