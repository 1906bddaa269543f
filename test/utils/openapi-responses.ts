import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { NextFunction, Request, Response } from 'express';

// ajv-formats is CommonJS: under ESM its function is the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/**
 * OpenAPI 3.0's `nullable: true` as JSON Schema: `anyOf: [null, the schema]`. (Ajv's own `nullable`
 * support only relaxes `type`, so `{nullable, type: object, allOf: [$ref]}` — what @nestjs/swagger
 * emits for a nullable nested DTO — would still reject null.)
 */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = key === 'example' ? value : toJsonSchema(value);
  if (out.nullable === true) {
    delete out.nullable;
    return { anyOf: [{ type: 'null' }, out] };
  }
  return out;
}

/** The id under which the document's components are added to Ajv once. */
const DOCUMENT_ID = 'openapi-document';

/** A copy of `node` whose local `#/…` refs point into the schema `id`. */
function withRefsInto(id: string, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((item) => withRefsInto(id, item));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node))
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${id}${value}` : withRefsInto(id, value);
  return out;
}

export interface ResponseMismatch {
  readonly operation: string;
  readonly status: number;
  readonly errors: string;
}

/**
 * Checks every JSON response the e2e suites provoke against the OpenAPI document the app serves,
 * so the document and the behaviour cannot drift. A response is checked when the document
 * declares a JSON schema for its operation and status; everything else (an undeclared status,
 * a route the document does not know, non-JSON bodies) is skipped, not guessed.
 */
export class OpenApiResponseChecker {
  readonly mismatches: ResponseMismatch[] = [];
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction | null>();

  private readonly components: unknown;

  constructor(private readonly document: OpenAPIObject) {
    this.components = toJsonSchema(document.components);
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: this.components });
  }

  /** Express middleware: records mismatches of the responses passing through. */
  install(app: INestApplication): void {
    app.use((req: Request, res: Response, next: NextFunction) => {
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        this.check(req, res.statusCode, body);
        return json(body);
      };
      next();
    });
  }

  private validatorFor(path: string, method: string, status: number): ValidateFunction | null {
    const key = `${method} ${path} ${status}`;
    if (this.cache.has(key)) return this.cache.get(key)!;
    const operation = (this.document.paths[path] as Record<string, { responses?: Record<string, unknown> }>)?.[method];
    const response = operation?.responses?.[String(status)] as
      { content?: Record<string, { schema?: Record<string, unknown> }> } | undefined;
    const schema = response?.content?.['application/json']?.schema;
    // The components are one schema of their own (DOCUMENT_ID), compiled once for every validator:
    // the response schema's `#/components/...` refs point into it.
    const validate = schema
      ? this.ajv.compile(withRefsInto(DOCUMENT_ID, toJsonSchema(schema)) as Record<string, unknown>)
      : null;
    this.cache.set(key, validate);
    return validate;
  }

  private check(req: Request, status: number, body: unknown): void {
    const routePath = (req.route as { path?: string } | undefined)?.path;
    if (typeof routePath !== 'string') return;
    const path = routePath.replace(/:(\w+)/g, '{$1}');
    const method = req.method.toLowerCase();
    const validate = this.validatorFor(path, method, status);
    if (!validate) return;
    const value: unknown = JSON.parse(JSON.stringify(body ?? null));
    if (!validate(value)) {
      this.mismatches.push({
        operation: `${req.method} ${path}`,
        status,
        errors: this.ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'body' }),
      });
    }
  }

  /** A readable report of the first mismatches, or null when every response matched. */
  report(): string | null {
    if (this.mismatches.length === 0) return null;
    const seen = new Set<string>();
    const lines: string[] = [];
    for (const m of this.mismatches) {
      const line = `${m.operation} → ${m.status}: ${m.errors}`;
      if (seen.has(line)) continue;
      seen.add(line);
      lines.push(`  - ${line}`);
    }
    return `Responses that do not match the OpenAPI document (/docs-json):\n${lines.slice(0, 20).join('\n')}`;
  }
}
