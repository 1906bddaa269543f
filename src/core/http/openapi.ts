import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from 'src/core/config/app-config';

/** Name of the `x-workspace-id` security scheme (Swagger's Authorize sets it once). */
export const WORKSPACE_SECURITY = 'workspace';

const ERROR_SCHEMA = 'ErrorResponse';

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'Malformed JSON (`invalid_json`) or invalid input (`validation_failed`, one `details` row per field)',
  '401': 'No, expired or unknown token (`unauthenticated`), or a wrong webhook signature (`invalid_signature`)',
  '403':
    'Role lacks the permission (`forbidden`), token lacks a scope (`insufficient_scope`), plan too small (`plan_required`) or not a member of `x-workspace-id` (`not_a_member`)',
  '404': 'Unknown id, or the id of another workspace (`not_found`)',
  '409': 'Duplicate value (`conflict`) or a state change not allowed now (`invalid_transition`)',
  '413': 'Body or upload over its limit (`payload_too_large`)',
  '429': 'Too many attempts (`rate_limited`); retry after `Retry-After` seconds',
};

/** Global tags, in the order Swagger UI shows them (unknown tags are appended alphabetically). */
const TAG_DESCRIPTIONS: Record<string, string> = {
  auth: 'Log in, sign up, change a password',
  workspace: 'The workspace, its members and their roles',
  permissions: 'Role permission matrix',
  developer: 'API tokens',
  channels: 'Connected channels and their inbound events',
  'channel webhooks': 'Platform webhooks and the Custom Channel inbound (signed; no bearer token)',
  conversations: 'The inbox: conversations, messages, views',
  queues: 'Queues, capacity, presence and routing',
  tickets: 'Tickets, comments, board and stats',
  contacts: 'Contacts, companies, custom fields, duplicates and import',
  sla: 'SLA policies',
  catalogue: 'Product catalogue items',
  'catalogue import': 'Catalogue CSV import: template, preview, re-map, commit',
  'catalogue websites': 'Catalogue website sync',
  'catalogue feed': 'Catalogue API feed (API token with scope catalog:write)',
  analytics: 'Presence and analytics',
  health: 'Health, liveness, readiness',
};

function errorSchema(): Record<string, unknown> {
  return {
    type: 'object',
    description: 'Every error has this shape (DESIGN §2).',
    required: ['statusCode', 'code', 'message', 'requestId'],
    properties: {
      statusCode: { type: 'integer', example: 400 },
      code: {
        type: 'string',
        description:
          'invalid_json, validation_failed, unauthenticated, invalid_credentials, invalid_signature, forbidden, insufficient_scope, plan_required, not_a_member, not_found, conflict, invalid_transition, payload_too_large, rate_limited, unavailable, provider_not_configured',
        example: 'validation_failed',
      },
      message: { type: 'string', example: 'senderId is required' },
      details: {
        type: 'array',
        items: {
          type: 'object',
          required: ['field', 'message'],
          properties: {
            field: { type: 'string', example: 'senderId' },
            message: { type: 'string', example: 'is required' },
          },
        },
      },
      requestId: { type: 'string' },
    },
  };
}

type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string }[];
  requestBody?: unknown;
  responses: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** Every operation of the document with its path and method. */
export function operationsOf(document: OpenAPIObject): { path: string; method: string; operation: Operation }[] {
  const rows: { path: string; method: string; operation: Operation }[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = (item as Record<string, unknown>)[method] as Operation | undefined;
      if (operation) rows.push({ path, method, operation });
    }
  }
  return rows;
}

/**
 * Completes what decorators cannot say once for all operations: the shared error responses with
 * the error schema, explicit `security: []` on public routes, and the global tag list.
 */
export function completeDocument(document: OpenAPIObject): OpenAPIObject {
  document.components ??= {};
  document.components.schemas ??= {};
  document.components.schemas[ERROR_SCHEMA] = errorSchema();
  const errorContent = { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_SCHEMA}` } } };
  const used = new Set<string>();

  for (const { path, method, operation } of operationsOf(document)) {
    for (const tag of operation.tags ?? []) used.add(tag);
    const secured = (operation.security ?? []).length > 0;
    if (!secured) operation.security = [];
    const hasInput = Boolean(operation.requestBody) || (operation.parameters ?? []).length > 0;
    const writes = method !== 'get' && method !== 'head' && method !== 'options';
    const codes = new Set<string>();
    if (hasInput || secured || writes) codes.add('400');
    if (secured) codes.add('401').add('403');
    if (path.includes('{')) codes.add('404');
    if (secured && writes) codes.add('409');
    if (operation.requestBody) codes.add('413');
    // Declared by the operation itself (e.g. 401 on signed webhooks, 429 on login).
    for (const code of Object.keys(operation.responses)) if (/^4\d\d$/.test(code)) codes.add(code);
    for (const code of codes) {
      const existing = operation.responses[code];
      operation.responses[code] = {
        ...existing,
        description: existing?.description || ERROR_DESCRIPTIONS[code] || 'Error',
        content: errorContent,
      };
    }
  }
  const order = Object.keys(TAG_DESCRIPTIONS);
  document.tags = [
    ...order.filter((name) => used.has(name)).map((name) => ({ name, description: TAG_DESCRIPTIONS[name]! })),
    ...[...used]
      .filter((name) => !order.includes(name))
      .sort()
      .map((name) => ({ name })),
  ];
  return document;
}

const documents = new WeakMap<INestApplication, OpenAPIObject>();

/** The document configureApp built and serves for this app (tests check responses against it). */
export function openApiDocumentOf(app: INestApplication): OpenAPIObject | undefined {
  return documents.get(app);
}

/** The OpenAPI document of the running application (served at /docs-json). */
export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Support Inbox Service')
    .setDescription(
      [
        'Multi-channel customer support: inbox, tickets, contacts, queues, SLA, catalogue.',
        '',
        '**Authorize**: log in with `POST /auth/login`, then in Authorize set `bearer` to the `accessToken` and',
        '`workspace` to a workspace id from the login response (`workspaces[0].id`). An API token (`sit_…`) needs',
        'no workspace. Errors follow one shape: `{statusCode, code, message, details, requestId}` (`ErrorResponse`).',
        'Lists are `{data, nextCursor}` pages; pass `nextCursor` back as `cursor`.',
      ].join('\n'),
    )
    .setVersion('1')
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addServer(config.publicBaseUrl, 'This service (PUBLIC_BASE_URL)')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      description: 'User JWT from POST /auth/login (with the workspace scheme) or an API token (sit_…)',
    })
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'x-workspace-id', description: 'Workspace id; needed with a user JWT' },
      WORKSPACE_SECURITY,
    );
  const document = completeDocument(SwaggerModule.createDocument(app, builder.build()));
  documents.set(app, document);
  return document;
}
