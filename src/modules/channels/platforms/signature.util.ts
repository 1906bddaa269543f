import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Constant-time string comparison (different lengths are simply unequal). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    // Compare against itself so the time spent does not depend on where the strings differ.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

export function hmacSha256Hex(secret: string | Buffer, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function hmacSha256Base64(secret: string | Buffer, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}

/** `sha256=<lowercase hex>`: Meta's X-Hub-Signature-256 and our X-Service-Signature. */
export function sha256Signature(secret: string, body: Buffer | string): string {
  return `sha256=${hmacSha256Hex(secret, body)}`;
}

/**
 * Whether a `sha256=<hex>` header matches the body under this secret (hex compared case-insensitively).
 * The 32 bytes are compared in constant time, the header's hex decoded rather than the digest encoded
 * (webhook acks, issue 16: no hex string, lower-casing or UTF-8 copies per request).
 */
export function verifySha256Signature(header: string | undefined, secret: string, body: Buffer): boolean {
  if (!header) return false;
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!match) return false;
  return timingSafeEqual(Buffer.from(match[1]!, 'hex'), createHmac('sha256', secret).update(body).digest());
}

/** LINE: base64 HMAC-SHA256 of the raw body under the channel secret. */
export function verifyBase64Signature(header: string | undefined, secret: string, body: Buffer): boolean {
  if (!header) return false;
  return safeEqual(header.trim(), hmacSha256Base64(secret, body));
}

/** Lookup keys for secrets that must be found without decrypting every row. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** The first value of a header that may have been sent under either of two names. */
export function headerValue(
  headers: Record<string, string | string[] | undefined>,
  ...names: string[]
): string | undefined {
  for (const name of names) {
    const value = headers[name.toLowerCase()];
    if (typeof value === 'string' && value.length > 0) return value;
    if (Array.isArray(value) && value[0]) return value[0];
  }
  return undefined;
}
