import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { QueryFailedError } from 'typeorm';
import { AppException } from './app.exception';
import { ERROR_STATUS, ErrorCode } from './error-codes';
import { isDatabaseUnavailable } from 'src/core/database/pg-errors';
import { requestIdOf } from 'src/core/http/request-id';

interface ErrorBody {
  statusCode: number;
  code: ErrorCode;
  message: string;
  details?: { field: string; message: string }[];
  requestId: string;
}

const HTTP_STATUS_CODES: Record<number, ErrorCode> = {
  400: ErrorCode.ValidationFailed,
  401: ErrorCode.Unauthenticated,
  403: ErrorCode.Forbidden,
  404: ErrorCode.NotFound,
  405: ErrorCode.NotFound,
  409: ErrorCode.Conflict,
  413: ErrorCode.PayloadTooLarge,
  429: ErrorCode.RateLimited,
  503: ErrorCode.Unavailable,
};

/** What a 503 for an unreachable database asks the client to wait before retrying. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Maps every error, ours or the framework's, onto DESIGN.md §2's shape. Never leaks driver messages. */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    const { body, headers } = this.toBody(exception, requestIdOf(request));
    if (body.statusCode >= 500) {
      this.logger.error({ err: loggableError(exception), requestId: body.requestId }, 'Unhandled error');
    }
    if (response.headersSent) return;
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    // Always JSON, even on a route that declared another content type (e.g. the text/plain handshake).
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.status(body.statusCode).json(body);
  }

  toBody(exception: unknown, requestId: string): { body: ErrorBody; headers: Record<string, string> } {
    const build = (code: ErrorCode, message: string, details?: ErrorBody['details'], status = ERROR_STATUS[code]) => {
      const body: ErrorBody = { statusCode: status, code, message, requestId };
      if (details !== undefined || code === ErrorCode.ValidationFailed) body.details = details ?? [];
      return body;
    };

    if (exception instanceof AppException) {
      return { body: build(exception.code, exception.message, exception.details), headers: exception.headers };
    }
    // Nest wraps body-parser errors in an HttpException whose `cause` is the original.
    const bodyParser =
      bodyParserError(exception) ?? bodyParserError(exception instanceof Error ? exception.cause : undefined);
    if (bodyParser) return { body: build(bodyParser.code, bodyParser.message), headers: {} };
    if (exception instanceof QueryFailedError) {
      const pgCode = (exception.driverError as { code?: string } | undefined)?.code;
      if (pgCode === '23505')
        return { body: build(ErrorCode.Conflict, 'A record with these values already exists'), headers: {} };
      if (pgCode === '23503')
        return { body: build(ErrorCode.NotFound, 'A referenced record does not exist'), headers: {} };
      // Class 22 (data exception: 22021 bad byte such as NUL, 22P05 untranslatable character,
      // 22P02/22007/22008/22003 formats and ranges …) and 54001 (statement too complex): the
      // client's input, never a 500. The input guard catches most before they reach the database.
      if (pgCode?.startsWith('22') || pgCode === '54001') {
        return { body: build(ErrorCode.ValidationFailed, 'A value has the wrong format'), headers: {} };
      }
    }
    if (isDatabaseUnavailable(exception)) {
      return {
        body: build(ErrorCode.Unavailable, 'The database is unavailable; retry shortly'),
        headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
      };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = HTTP_STATUS_CODES[status] ?? (status >= 500 ? ErrorCode.Internal : ErrorCode.ValidationFailed);
      const raw = exception.getResponse();
      let message = exception.message;
      if (typeof raw === 'object' && raw !== null && 'message' in raw) {
        const m = (raw as { message: unknown }).message;
        message = Array.isArray(m) ? m.join('; ') : String(m);
      }
      if (status === 404) message = 'Not found';
      return { body: build(code, message, undefined, status), headers: {} };
    }
    return { body: build(ErrorCode.Internal, 'Internal server error'), headers: {} };
  }
}

/**
 * What a 500 logs: never the statement's parameter values (a member's password hash, a token's hash
 * would end up in the log). A database error is logged by SQLSTATE, table, constraint and column.
 */
export function loggableError(exception: unknown): unknown {
  if (exception instanceof QueryFailedError) {
    const d = (exception.driverError ?? {}) as Record<string, unknown>;
    return {
      type: 'QueryFailedError',
      sqlstate: d.code,
      table: d.table,
      constraint: d.constraint,
      column: d.column,
      routine: d.routine,
      stack: exception.stack?.split('\n').slice(1).join('\n'),
    };
  }
  return exception;
}

/** Express body-parser and multer errors: malformed JSON, bodies over the limit. */
function bodyParserError(exception: unknown): { code: ErrorCode; message: string } | null {
  if (typeof exception !== 'object' || exception === null) return null;
  const e = exception as { type?: string; code?: string; status?: number; message?: string };
  if (e.type === 'entity.parse.failed')
    return { code: ErrorCode.InvalidJson, message: 'Request body is not valid JSON' };
  if (e.type === 'entity.too.large' || e.code === 'LIMIT_FILE_SIZE') {
    return { code: ErrorCode.PayloadTooLarge, message: 'Request body is too large' };
  }
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return { code: ErrorCode.ValidationFailed, message: 'Unsupported request encoding' };
  }
  if (typeof e.code === 'string' && e.code.startsWith('LIMIT_'))
    return { code: ErrorCode.ValidationFailed, message: e.message ?? 'Bad upload' };
  return null;
}
