import { Injectable } from '@nestjs/common';
import axios, { type AxiosError } from 'axios';

export interface PlatformRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly url: string;
  readonly headers?: Record<string, string>;
  /** A string is sent byte for byte (signed bodies); an object is sent as JSON. */
  readonly body?: string | object;
  readonly timeoutMs?: number;
}

export interface PlatformResponse {
  readonly status: number;
  readonly data: unknown;
}

/**
 * A platform answered with a non-2xx status or could not be reached. The message never contains the
 * request URL (a Telegram URL carries the bot token) or headers.
 */
export class PlatformRequestError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** The one place channel code makes HTTP calls to platforms and Custom Channel endpoints. */
@Injectable()
export class PlatformHttp {
  /** Sends the request; 2xx → the parsed body; anything else → PlatformRequestError. */
  async request(request: PlatformRequest): Promise<PlatformResponse> {
    const headers: Record<string, string> = { ...request.headers };
    let data: string | undefined;
    if (typeof request.body === 'string') data = request.body;
    else if (request.body !== undefined) data = JSON.stringify(request.body);
    if (data !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['Content-Type'] = 'application/json';
    }
    let response;
    try {
      response = await axios.request<unknown>({
        method: request.method,
        url: request.url,
        headers,
        data,
        timeout: request.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        responseType: 'json',
        transformRequest: [(body: unknown) => body],
        validateStatus: () => true,
        maxRedirects: 0,
      });
    } catch (error) {
      const code = (error as AxiosError).code ?? 'network error';
      throw new PlatformRequestError(code === 'ECONNABORTED' ? 'timed out' : `request failed (${code})`, null);
    }
    if (response.status < 200 || response.status >= 300) {
      throw new PlatformRequestError(`HTTP ${response.status}${describe(response.data)}`, response.status);
    }
    return { status: response.status, data: response.data };
  }
}

/** A short, secret-free description of a platform's error body (Graph `error.message`, Telegram `description`…). */
export function describe(data: unknown): string {
  if (typeof data !== 'object' || data === null) return '';
  const body = data as Record<string, unknown>;
  const error = body.error;
  const nested = typeof error === 'object' && error !== null ? (error as Record<string, unknown>).message : undefined;
  const text = [nested, body.description, body.message, typeof error === 'string' ? error : undefined].find(
    (v): v is string => typeof v === 'string' && v.length > 0,
  );
  return text ? `: ${text.slice(0, 200)}` : '';
}
