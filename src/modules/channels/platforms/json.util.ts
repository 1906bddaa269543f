/** Narrowing helpers for platform payloads (unknown JSON in, typed values out, no casts at call sites). */
export type Json = Record<string, unknown>;

export function obj(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** A string, or a number written as a string (platform ids are sometimes numbers). */
export function idOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return str(value);
}

export function num(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)) return Number(value);
  return null;
}

/** Unix time in seconds (< 10¹²) or milliseconds (DESIGN §4.3). */
export function unixTime(value: unknown): Date | null {
  const n = num(value);
  if (n === null) return null;
  return new Date(n < 1e12 ? n * 1000 : n);
}
