import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which automations caused the work now running (loop guard, DESIGN §8). The engine runs an
 * automation's actions inside `withCause`; every event those actions publish — synchronously or
 * after commit (TransactionHost binds after-commit hooks to the context that registered them) —
 * is evaluated knowing its chain: an automation never re-runs on its own changes, and a chain stops
 * at MAX_CHAIN_DEPTH automations.
 */
export interface Causation {
  /** Automations in the chain, oldest first. */
  readonly chain: readonly string[];
}

export const MAX_CHAIN_DEPTH = 3;

const storage = new AsyncLocalStorage<Causation>();

export function currentCausation(): Causation {
  return storage.getStore() ?? { chain: [] };
}

export function withCause<T>(automationId: string, fn: () => Promise<T>): Promise<T> {
  const chain = [...currentCausation().chain, automationId];
  return storage.run({ chain }, fn);
}
