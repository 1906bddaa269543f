import { describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { OpenApiResponseChecker } from './openapi-responses';

/**
 * The checker every e2e file relies on (test-app.ts) must flag a response that breaks its schema,
 * including through `$ref`s into the components and `nullable` nested objects, and pass one that fits.
 */
const document = {
  openapi: '3.0.0',
  info: { title: 't', version: '1' },
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Owner: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      Thing: {
        type: 'object',
        required: ['id', 'owner'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          owner: { nullable: true, allOf: [{ $ref: '#/components/schemas/Owner' }] },
        },
      },
    },
  },
} as unknown as OpenAPIObject;

function respond(checker: OpenApiResponseChecker, body: unknown): void {
  let middleware!: (req: Request, res: Response, next: NextFunction) => void;
  checker.install({ use: (fn: typeof middleware) => (middleware = fn) } as unknown as INestApplication);
  const res = { statusCode: 200, json: (b: unknown) => b } as unknown as Response;
  middleware({ route: { path: '/things/:id' }, method: 'GET' } as unknown as Request, res, () => undefined);
  res.json(body);
}

describe('OpenApiResponseChecker', () => {
  it('passes bodies that fit the schema, a null nullable object included', () => {
    const checker = new OpenApiResponseChecker(document);
    respond(checker, { id: '0b6f8a3e-8d3c-4c1e-9a57-2f4a1c9d7e11', owner: { name: 'Ana' } });
    respond(checker, { id: '0b6f8a3e-8d3c-4c1e-9a57-2f4a1c9d7e11', owner: null });
    expect(checker.report()).toBeNull();
  });

  it('flags a body that breaks the schema, inside a referenced component too', () => {
    const checker = new OpenApiResponseChecker(document);
    respond(checker, { id: 'not-a-uuid', owner: { name: 'Ana' } });
    respond(checker, { id: '0b6f8a3e-8d3c-4c1e-9a57-2f4a1c9d7e11', owner: { name: 7 } });
    const report = checker.report();
    expect(report).toContain('GET /things/{id} → 200');
    expect(report).toContain('body/id must match format "uuid"');
    expect(report).toContain('body/owner/name must be string');
  });
});
