import { describe, expect, it } from '@jest/globals';
import { QueryFailedError, type DataSource } from 'typeorm';
import {
  foreignKeyViolation,
  isRetryable,
  isUniqueViolation,
  likePattern,
  sqlState,
  uniqueViolation,
} from './pg-errors';
import { TransactionHost } from './transaction-host';

function failed(code: string, constraint?: string): QueryFailedError {
  return new QueryFailedError('SELECT 1', [], Object.assign(new Error('pg'), { code, constraint }));
}

describe('PostgreSQL error helpers', () => {
  it('name the constraint of a unique or foreign-key violation, null for anything else', () => {
    expect(uniqueViolation(failed('23505', 'contacts_email_key'))).toBe('contacts_email_key');
    expect(uniqueViolation(failed('23503', 'fk'))).toBeNull();
    expect(foreignKeyViolation(failed('23503', 'fk'))).toBe('fk');
    expect(foreignKeyViolation(new Error('x'))).toBeNull();
    expect(isUniqueViolation({ code: '23505' })).toBe(true);
    expect(isUniqueViolation(null)).toBe(false);
    expect(sqlState(failed('22P02'))).toBe('22P02');
  });

  it('call deadlocks and serialization failures retryable', () => {
    expect(isRetryable(failed('40P01'))).toBe(true);
    expect(isRetryable(failed('40001'))).toBe(true);
    expect(isRetryable(failed('23505'))).toBe(false);
  });

  it('escape LIKE wildcards', () => {
    expect(likePattern('50%_a\\b')).toBe('%50\\%\\_a\\\\b%');
  });
});

describe('TransactionHost.runWithRetry', () => {
  const dataSource = { transaction: (fn: (manager: unknown) => Promise<unknown>) => fn({}) } as unknown as DataSource;

  it('runs again after a deadlock, up to the attempts given, and not after other errors', async () => {
    const tx = new TransactionHost(dataSource);
    let calls = 0;
    await expect(
      tx.runWithRetry(async () => {
        calls++;
        if (calls < 3) throw failed('40P01');
        return 'ok';
      }),
    ).resolves.toBe('ok');
    expect(calls).toBe(3);

    calls = 0;
    await expect(
      tx.runWithRetry(async () => {
        calls++;
        throw failed('40001');
      }, 2),
    ).rejects.toBeInstanceOf(QueryFailedError);
    expect(calls).toBe(2);

    calls = 0;
    await expect(
      tx.runWithRetry(async () => {
        calls++;
        throw failed('23505');
      }),
    ).rejects.toBeInstanceOf(QueryFailedError);
    expect(calls).toBe(1);
  });
});
