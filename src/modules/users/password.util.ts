import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const KEY_LENGTH = 64;
/**
 * scrypt's N for new hashes (AppConfig.auth.passwordHashCost lowers it under NODE_ENV=test only).
 *
 * 32768 with r=8: each derivation allocates 128 · r · N = 32 MiB plus ~3 kB, just above glibc's
 * 32 MiB cap on its dynamic mmap threshold, so the block is always mapped for the call and unmapped
 * after it. At 16384 the 16 MiB block raised the process's mmap threshold to 16 MiB (the trim threshold
 * to 32 MiB) on the first login, and every later login left 16 MiB in the thread pool's malloc arena
 * (docs/performance.md, "Session 25" and "Session 29"). It is also closer to OWASP's scrypt guidance
 * (N=2^17), at ~2 × the CPU per login (≈ 0.1 s). Hashes of a lower cost are upgraded at the next
 * successful login (`needsRehash`).
 */
export const PASSWORD_HASH_COST = 32768;

function derive(password: string, salt: Buffer, cost: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, { N: cost, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** scrypt (N=`cost`, r=8, p=1), stored as `scrypt$N$salt$hash` so the cost can rise later. */
export async function hashPassword(password: string, cost = PASSWORD_HASH_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return `scrypt$${cost}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, cost, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !cost || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), Number(cost));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Whether a stored hash was made with a lower cost than `cost` (or another scheme): hash it again at login. */
export function needsRehash(stored: string, cost: number): boolean {
  const [scheme, storedCost] = stored.split('$');
  return scheme !== 'scrypt' || !(Number(storedCost) >= cost);
}

/** A hash no password matches: login compares against it for unknown emails so timing reveals nothing. */
export const DUMMY_PASSWORD_HASH = `scrypt$${PASSWORD_HASH_COST}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_LENGTH).toString('base64')}`;
