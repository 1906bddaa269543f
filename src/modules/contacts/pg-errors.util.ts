import { QueryFailedError } from 'typeorm';

interface PgErrorFields {
  readonly code?: unknown;
  readonly constraint?: unknown;
}

function pgError(error: unknown): { code: string; constraint: string } | null {
  if (!(error instanceof QueryFailedError)) return null;
  const driver: PgErrorFields = error.driverError ?? {};
  return {
    code: typeof driver.code === 'string' ? driver.code : '',
    constraint: typeof driver.constraint === 'string' ? driver.constraint : '',
  };
}

/** The constraint a unique violation (23505) hit, or null for any other error. */
export function uniqueViolation(error: unknown): string | null {
  const e = pgError(error);
  return e?.code === '23505' ? e.constraint : null;
}

/** The constraint a foreign-key violation (23503) hit, or null for any other error. */
export function foreignKeyViolation(error: unknown): string | null {
  const e = pgError(error);
  return e?.code === '23503' ? e.constraint : null;
}
