import type { NextFunction, Request, Response } from 'express';
import { AppException } from 'src/core/errors/app.exception';
import { HttpExceptionFilter } from 'src/core/errors/http-exception.filter';
import { requestIdOf } from './request-id';

/** Deepest JSON nesting accepted (objects and arrays); deeper bodies are refused before validation. */
export const MAX_JSON_DEPTH = 64;

/**
 * Signed webhook receivers: a NUL in a customer's text must never lose a message, so their bodies
 * pass with NULs (the inbound log keeps the raw bytes and sanitises when it stores the payload).
 * The depth limit still applies.
 */
const WEBHOOK_PATH = /^\/(webhooks\/[^/]+|custom-channel\/[^/]+\/inbound)\/?$/;

export type InputProblem = { field: string; message: string };

/**
 * Walks a parsed JSON value without recursion: the first string (or key) holding U+0000, or the
 * first value nested deeper than `maxDepth`. `checkNul: false` looks at depth only.
 */
export function findInputProblem(
  root: unknown,
  { maxDepth = MAX_JSON_DEPTH, checkNul = true, rootName = '' } = {},
): InputProblem | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: rootName, depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (checkNul && value.includes('\u0000')) return { field: path || 'body', message: 'must not contain U+0000' };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= maxDepth) {
      return { field: path || 'body', message: `is nested deeper than ${maxDepth} levels` };
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push({ value: value[i], path: path ? `${path}.${i}` : String(i), depth: depth + 1 });
      }
      continue;
    }
    for (const key of Object.keys(value)) {
      const child = path ? `${path}.${key}` : key;
      if (checkNul && key.includes('\u0000')) return { field: child, message: 'must not contain U+0000' };
      stack.push({ value: (value as Record<string, unknown>)[key], path: child, depth: depth + 1 });
    }
  }
  return null;
}

/** Replaces U+0000 (which PostgreSQL text and jsonb cannot hold) by U+FFFD in every string and key. */
export function sanitizeJson<T>(root: T): T {
  const fix = (s: string) => (s.includes('\u0000') ? s.replace(/\u0000/g, '\uFFFD') : s);
  const holder = { root: root as unknown };
  const stack: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [
    { parent: holder, key: 'root' },
  ];
  while (stack.length) {
    const { parent, key } = stack.pop()!;
    const value = (parent as Record<string | number, unknown>)[key];
    if (typeof value === 'string') {
      (parent as Record<string | number, unknown>)[key] = fix(value);
    } else if (Array.isArray(value)) {
      const copy = value.slice();
      (parent as Record<string | number, unknown>)[key] = copy;
      for (let i = 0; i < copy.length; i++) stack.push({ parent: copy, key: i });
    } else if (typeof value === 'object' && value !== null) {
      const copy: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) copy[fix(k)] = v;
      (parent as Record<string | number, unknown>)[key] = copy;
      for (const k of Object.keys(copy)) stack.push({ parent: copy, key: k });
    }
  }
  return holder.root as T;
}

/** True when some string or key of the value holds U+0000 (no depth limit; iterative). */
export function containsNul(root: unknown): boolean {
  return findInputProblem(root, { maxDepth: Number.MAX_SAFE_INTEGER })?.message === 'must not contain U+0000';
}

const FILTER = new HttpExceptionFilter();

/**
 * Runs after the body parsers and before guards, pipes and handlers: input PostgreSQL cannot hold
 * (U+0000) or the validation pipe cannot walk (deep nesting) is a 400 `validation_failed` naming the
 * field, never a 500 (issue 9).
 */
export function inputGuard(req: Request, res: Response, next: NextFunction): void {
  const problem =
    findInputProblem(req.query, { maxDepth: MAX_JSON_DEPTH }) ??
    findInputProblem(req.body, { checkNul: !WEBHOOK_PATH.test(req.path) });
  if (!problem) return next();
  const { body } = FILTER.toBody(AppException.field(problem.field, problem.message), requestIdOf(req));
  res.status(body.statusCode).json(body);
}
