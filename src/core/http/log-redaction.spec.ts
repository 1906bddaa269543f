import { describe, expect, it } from '@jest/globals';
import { REDACTED, redactedError, redactedRequest, redactHeaders, redactUrl } from './log-redaction';

describe('log redaction (issue 9)', () => {
  it('redacts every signature, secret, token, key, cookie and authorization header', () => {
    const headers = {
      authorization: 'Bearer abc',
      cookie: 'sid=1',
      'x-api-key': 'k',
      'x-service-signature': 'sha256=1',
      'x-hub-signature-256': 'sha256=2',
      'x-telegram-bot-api-secret-token': 'tg',
      'x-messenger-bot-api-secret-token': 'ms',
      'x-line-signature': 'ln',
      'x-chat-content-signature': 'cc',
      'x-shop-key': 'shop',
      'content-type': 'application/json',
    };
    const out = redactHeaders(headers)!;
    for (const name of Object.keys(headers)) {
      expect(out[name]).toBe(name === 'content-type' ? 'application/json' : REDACTED);
    }
  });

  it('redacts hub.* and token-like query parameters in the URL and the query', () => {
    expect(redactUrl('/webhooks/meta?hub.mode=subscribe&hub.verify_token=s3cret&hub.challenge=42&x=1')).toBe(
      `/webhooks/meta?hub.mode=${REDACTED}&hub.verify_token=${REDACTED}&hub.challenge=${REDACTED}&x=1`,
    );
    const req = redactedRequest({ url: '/a?token=t1', query: { token: 't1', q: 'ok' }, headers: {} });
    expect(JSON.stringify(req)).not.toContain('t1');
  });

  it('drops SQL parameter values and detail from serialized database errors', () => {
    const out = redactedError({
      type: 'QueryFailedError',
      message: 'duplicate key',
      parameters: ['scrypt$hash'],
      driverError: { code: '23505', table: 'api_tokens', constraint: 'api_tokens_hash_key', detail: 'Key (h)=(abc)' },
    });
    const text = JSON.stringify(out);
    expect(text).not.toContain('scrypt$hash');
    expect(text).not.toContain('abc');
    expect(text).toContain('23505');
    expect(text).toContain('api_tokens_hash_key');
  });
});
