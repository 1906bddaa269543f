/**
 * libuv's thread pool on the embedded engine: one thread instead of four (issue 16 item 5, DESIGN §13:
 * a 100,000-row CSV import under 300 MB resident). Every pool thread that allocates gets its own glibc
 * malloc arena and keeps what it freed there (scrypt's 16 MB block at login, zlib's state for the
 * upload's gzip and the commit's gunzip): with one thread they share one arena. Measured with
 * `csv-memory-probe.js` (docs/performance.md, "Session 27"): thread arenas 74 → 58 MB idle and at the
 * commit's peak, the commit's time unchanged. The pool runs only the embedded service's occasional work
 * (logins' scrypt, the import's compression, DNS look-ups of outbound calls): the webhook acks and
 * the database never use it. On PostgreSQL, and wherever the operator set UV_THREADPOOL_SIZE, nothing
 * changes.
 *
 * libuv reads the variable when the pool first starts, so main.ts sets it before any pool work.
 */
export const EMBEDDED_THREADPOOL_SIZE = '1';

/** The UV_THREADPOOL_SIZE to set in this process's environment, or null to leave it as it is. */
export function threadpoolSizeToSet(embedded: boolean, current: string | undefined): string | null {
  if (!embedded || (current !== undefined && current !== '')) return null;
  return EMBEDDED_THREADPOOL_SIZE;
}
