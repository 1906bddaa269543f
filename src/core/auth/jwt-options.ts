import type { JwtModuleOptions } from '@nestjs/jwt';
import { createSecretKey } from 'node:crypto';
import { JWT_ALGORITHM } from './auth.guard';

/**
 * The user JWTs' module options: HS256 only on sign and verify (issue 9), with the secret handed over
 * as a KeyObject. Given a string, jsonwebtoken first tries to parse it as a PEM public key on every
 * verify (it throws, and only then makes a secret key of it): about 2 ms of CPU per authenticated
 * request, against ~30 µs with a KeyObject (docs/performance.md, session 24).
 */
export function jwtModuleOptions(secret: string): JwtModuleOptions {
  return {
    global: true,
    secret: createSecretKey(Buffer.from(secret)),
    signOptions: { algorithm: JWT_ALGORITHM },
    verifyOptions: { algorithms: [JWT_ALGORITHM] },
  };
}
