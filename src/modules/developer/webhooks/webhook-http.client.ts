import { Injectable } from '@nestjs/common';
import { OutboundHttp, OutboundHttpError } from 'src/core/http/outbound-http';

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const RESPONSE_EXCERPT_BYTES = 1024;
/** A receiver's answer beyond this size fails the attempt (only the first KB is kept anyway). */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface WebhookHttpResult {
  /** The HTTP status, or null when no answer came (network error, timeout, refused address). */
  readonly statusCode: number | null;
  readonly durationMs: number;
  /** Why the attempt failed before an answer, else null. */
  readonly error: string | null;
  /** The first KB of the answer. */
  readonly responseExcerpt: string | null;
}

/**
 * The one place webhook deliveries touch the network, on the shared outbound client
 * (`src/core/http/outbound-http.ts`): http(s) only; unless OUTBOUND_ALLOW_PRIVATE_NETWORKS, every
 * address the host resolves to *at connection time* is checked and the socket connects to the checked
 * address (no DNS-rebinding window); a 10 s timeout; redirects never followed (a 3xx with a Location is
 * a failed attempt).
 */
@Injectable()
export class WebhookHttpClient {
  constructor(private readonly outbound: OutboundHttp) {}

  async post(
    url: string,
    headers: Record<string, string>,
    body: string,
    timeoutMs = WEBHOOK_TIMEOUT_MS,
  ): Promise<WebhookHttpResult> {
    const started = Date.now();
    try {
      const response = await this.outbound.request({
        method: 'POST',
        url,
        headers,
        body,
        timeoutMs,
        maxBytes: MAX_RESPONSE_BYTES,
        maxRedirects: 0,
      });
      return {
        statusCode: response.status,
        durationMs: Date.now() - started,
        error: null,
        responseExcerpt: excerpt(response.body),
      };
    } catch (error) {
      const message =
        error instanceof OutboundHttpError
          ? error.kind === 'timeout'
            ? `no answer within ${timeoutMs / 1000} s (timeout)`
            : error.message
          : error instanceof Error
            ? error.message
            : String(error);
      return { statusCode: null, durationMs: Date.now() - started, error: message, responseExcerpt: null };
    }
  }
}

/** At most 1 KB of the answer as text (a cut multi-byte character is dropped). */
function excerpt(bytes: Buffer): string | null {
  if (bytes.length === 0) return null;
  return bytes
    .subarray(0, RESPONSE_EXCERPT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '')
    .replace(/\u0000/g, '');
}
