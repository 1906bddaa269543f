import { ERROR_STATUS, ErrorCode } from './error-codes';

export interface ErrorDetail {
  readonly field: string;
  readonly message: string;
}

/** The one exception services throw; the global filter turns it into DESIGN.md §2's error shape. */
export class AppException extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  static notFound(what = 'Resource'): AppException {
    return new AppException(ErrorCode.NotFound, `${what} not found`);
  }

  static validation(message: string, details: ErrorDetail[] = []): AppException {
    return new AppException(ErrorCode.ValidationFailed, message, details);
  }

  static field(field: string, message: string): AppException {
    return new AppException(ErrorCode.ValidationFailed, `${field} ${message}`, [{ field, message }]);
  }

  static conflict(message: string): AppException {
    return new AppException(ErrorCode.Conflict, message);
  }

  static forbidden(message = 'You do not have permission to do this'): AppException {
    return new AppException(ErrorCode.Forbidden, message);
  }

  static invalidTransition(message: string): AppException {
    return new AppException(ErrorCode.InvalidTransition, message);
  }

  static unauthenticated(message = 'Authentication required'): AppException {
    return new AppException(ErrorCode.Unauthenticated, message);
  }

  static tooLarge(message: string): AppException {
    return new AppException(ErrorCode.PayloadTooLarge, message);
  }
}
