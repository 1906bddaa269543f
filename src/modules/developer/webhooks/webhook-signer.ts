import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (DESIGN §14). */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key: the decoded bytes after `whsec_` (as Standard Webhooks does). */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/**
 * The signature headers of one attempt. `webhook-signature` holds a `v1,<base64>` signature of
 * `id.timestamp.body` for every secret given (space-separated: during a rotation both the new and
 * the old one); `X-Service-Signature` is `sha256=<hex HMAC of the body>` with the current secret.
 */
export function signatureHeaders(
  id: string,
  timestampSeconds: number,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  const content = `${id}.${timestampSeconds}.${body}`;
  const [current] = secrets;
  if (!current) throw new Error('a webhook needs a secret');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets
      .map((s) => `v1,${createHmac('sha256', keyOf(s)).update(content).digest('base64')}`)
      .join(' '),
    'x-service-signature': `sha256=${createHmac('sha256', keyOf(current)).update(body).digest('hex')}`,
  };
}
