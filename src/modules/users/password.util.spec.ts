import { describe, expect, it } from '@jest/globals';
import { DUMMY_PASSWORD_HASH, hashPassword, needsRehash, verifyPassword } from './password.util';

describe('password hashing', () => {
  it('verifies the right password only, with a per-hash salt', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$32768\$/);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('wrong horse', hash)).toBe(false);
    expect(await hashPassword('correct horse')).not.toBe(hash);
    expect(await verifyPassword('anything', DUMMY_PASSWORD_HASH)).toBe(false);
    expect(await verifyPassword('anything', 'md5$abc')).toBe(false);
  });

  it('stores the cost it was given, and verifies by the stored cost', async () => {
    const hash = await hashPassword('correct horse', 1024);
    expect(hash).toMatch(/^scrypt\$1024\$/);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('wrong horse', hash)).toBe(false);
  });

  it('asks for a new hash when the stored one was made with a lower cost or another scheme', async () => {
    const hash = await hashPassword('correct horse', 1024);
    expect(needsRehash(hash, 1024)).toBe(false);
    expect(needsRehash(hash, 512)).toBe(false);
    expect(needsRehash(hash, 32768)).toBe(true);
    expect(needsRehash('md5$abc', 1024)).toBe(true);
    expect(needsRehash('scrypt$$x$y', 1024)).toBe(true);
  });
});
