import { QueryFailedError } from 'typeorm';

/** The constraint a foreign-key violation (23503) hit, or null for any other error. */
export function foreignKeyViolation(error: unknown): string | null {
  if (!(error instanceof QueryFailedError)) return null;
  const driver: { code?: unknown; constraint?: unknown } = error.driverError ?? {};
  return driver.code === '23503' && typeof driver.constraint === 'string' ? driver.constraint : null;
}
