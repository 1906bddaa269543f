import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { AppConfig } from 'src/core/config/app-config';
import { SecretBox } from './secret-box.service';

const box = (key = randomBytes(32)) => new SecretBox({ encryptionKey: key } as AppConfig);

describe('SecretBox', () => {
  it('round-trips and never stores the plain text', () => {
    const b = box();
    const sealed = b.encrypt('page-access-token');
    expect(sealed).not.toContain('page-access-token');
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(b.decrypt(sealed)).toBe('page-access-token');
    expect(b.encrypt('same')).not.toBe(b.encrypt('same'));
  });

  it('refuses tampered data and another key', () => {
    const b = box();
    const sealed = b.encrypt('secret');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => b.decrypt(parts.join('.'))).toThrow();
    expect(() => box().decrypt(sealed)).toThrow();
  });
});
