import type { ValidationError } from 'class-validator';
import { AppException, type ErrorDetail } from './app.exception';

/** Flattens class-validator's tree into `{field: "items.3.id", message}` rows. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): ErrorDetail[] {
  const rows: ErrorDetail[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    // One row per field: the top-most decorator's message (declared first, checked last: usually the type).
    const message = Object.values(error.constraints ?? {}).pop();
    if (message !== undefined) {
      rows.push({
        field,
        message: message.startsWith(`${error.property} `) ? message.slice(error.property.length + 1) : message,
      });
    }
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
