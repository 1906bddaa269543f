import { type Type, applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiTooManyRequestsResponse, getSchemaPath } from '@nestjs/swagger';
import type { ApiResponseSchemaHost } from '@nestjs/swagger';

type SchemaObject = ApiResponseSchemaHost['schema'];

/** The schema of one keyset page of `Item` (DESIGN §2): `{data: Item[], nextCursor: string | null}`. */
export function pageResponse(item: Type<unknown>): SchemaObject {
  return {
    type: 'object',
    required: ['data', 'nextCursor'],
    properties: {
      data: { type: 'array', items: { $ref: getSchemaPath(item) } },
      nextCursor: {
        type: 'string',
        nullable: true,
        description: 'Pass as `cursor` for the next page; null on the last page',
      },
    },
  };
}

/** `200` with a typed page of `Item`, for list operations. */
export const ApiPageResponse = (item: Type<unknown>, description?: string): MethodDecorator =>
  applyDecorators(ApiExtraModels(item), ApiOkResponse({ schema: pageResponse(item), description }));

/** Declares the rate-limit response (429 with `Retry-After`); the document adds the error schema. */
export const ApiRateLimited = (): MethodDecorator =>
  ApiTooManyRequestsResponse({
    description: 'Too many attempts (`rate_limited`); retry after `Retry-After` seconds',
    headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
  });
