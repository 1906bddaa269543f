import { describe, expect, it } from '@jest/globals';
import { JwtService } from '@nestjs/jwt';
import jsonwebtoken from 'jsonwebtoken';
import { KeyObject } from 'node:crypto';
import { jwtModuleOptions } from './jwt-options';

const SECRET = 'unit-test-secret-0123456789';

describe('jwtModuleOptions', () => {
  it('hands jsonwebtoken a KeyObject, not a string it would first try to parse as a public key per verify', () => {
    expect(jwtModuleOptions(SECRET).secret).toBeInstanceOf(KeyObject);
  });

  it('verifies what it signs, and a token signed with the same secret as a plain string', async () => {
    const jwt = new JwtService(jwtModuleOptions(SECRET));
    const token = await jwt.signAsync({ sub: 'user-1' }, { expiresIn: 60 });
    await expect(jwt.verifyAsync(token)).resolves.toMatchObject({ sub: 'user-1' });
    const elsewhere = jsonwebtoken.sign({ sub: 'user-2' }, SECRET, { algorithm: 'HS256', expiresIn: 60 });
    await expect(jwt.verifyAsync(elsewhere)).resolves.toMatchObject({ sub: 'user-2' });
  });

  it('rejects another secret, another algorithm and unsigned tokens', async () => {
    const jwt = new JwtService(jwtModuleOptions(SECRET));
    const wrongSecret = jsonwebtoken.sign({ sub: 'x' }, 'another-secret-0123456789', { algorithm: 'HS256' });
    const hs512 = jsonwebtoken.sign({ sub: 'x' }, SECRET, { algorithm: 'HS512' });
    const unsigned = jsonwebtoken.sign({ sub: 'x' }, '', { algorithm: 'none' });
    for (const token of [wrongSecret, hs512, unsigned]) await expect(jwt.verifyAsync(token)).rejects.toThrow();
  });
});
