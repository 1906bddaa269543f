import { describe, expect, it } from '@jest/globals';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from './password.util';

describe('password hashing', () => {
  it('verifies the right password only, with a per-hash salt', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$16384\$/);
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
});
