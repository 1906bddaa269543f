/**
 * The contract between `bench/run.ts` and a bench module. A module is a file in `bench/` that
 * exports `run(ctx)` and is listed in `MODULES` in `bench/run.ts`; it returns one row per figure.
 */
export interface BenchRow {
  /** Which module produced the row (set by run.ts when missing). */
  module?: string;
  /** Human name of the figure, including the engine when it matters: "ack p99 (PG + Redis)". */
  readonly figure: string;
  /** The measured value (a number in `unit`), or null when it could not be measured. */
  readonly value: number | null;
  readonly unit: string;
  /** The target as text ("< 50", "≥ 300"); the comparison is `pass`. */
  readonly target?: string;
  /** true / false against the target; undefined when the figure has no target. */
  readonly pass?: boolean;
  /** A correctness figure (e.g. nothing lost): gated even in --short mode. */
  readonly correctness?: boolean;
  /** value ÷ the baseline measured in the same run (for timings and rates), with the baseline's name. */
  readonly ratio?: number;
  readonly baseline?: string;
  /** Anything a reader needs to trust the figure: sizes, offered vs achieved rates, errors. */
  readonly note?: string;
}

export interface BenchContext {
  /** `--short`: a few seconds per figure, small data sets; the CI uses it so the bench cannot rot. Targets are not gated. */
  readonly short: boolean;
  /** A PostgreSQL server the bench may create databases on (the PostgreSQL rounds are skipped without it). */
  readonly databaseUrl?: string;
  readonly redisUrl?: string;
  /** Whether to run the embedded rounds (`--pg-only` turns them off; `--embedded-only` drops the PostgreSQL ones). */
  readonly embedded: boolean;
  /** Progress lines (stderr), so the table on stdout stays one table. */
  log(message: string): void;
}

export interface BenchModule {
  readonly name: string;
  run(ctx: BenchContext): Promise<BenchRow[]>;
}

/** Helpers for targets. */
export function below(value: number | null, limit: number): { target: string; pass: boolean } {
  return { target: `< ${limit}`, pass: value !== null && value < limit };
}

export function atLeast(value: number | null, limit: number): { target: string; pass: boolean } {
  return { target: `≥ ${limit}`, pass: value !== null && value >= limit };
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
