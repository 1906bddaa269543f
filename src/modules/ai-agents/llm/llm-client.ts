import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from 'src/core/config/config.constants';
import type { AppConfig } from 'src/core/config/app-config';
import { AppException } from 'src/core/errors/app.exception';
import { ErrorCode } from 'src/core/errors/error-codes';

/** One call's time limit (issue 13: 20 s), and one retry after a failure. */
export const LLM_TIMEOUT_MS = 20_000;
export const LLM_ATTEMPTS = 2;

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export class LlmError extends Error {}

/**
 * Any OpenAI-compatible server (`LLM_BASE_URL`: Ollama, vLLM, OpenAI …): `POST /chat/completions`
 * and `GET /models`. The URL comes from the operator's configuration, not from users.
 */
@Injectable()
export class LlmClient {
  private readonly logger = new Logger('LLM');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get configured(): boolean {
    return this.config.llm.baseUrl !== null;
  }

  get defaultModel(): string | null {
    return this.config.llm.model;
  }

  /** 503 `provider_not_configured` unless an LLM is configured. */
  requireConfigured(): void {
    if (!this.configured) {
      throw new AppException(ErrorCode.ProviderNotConfigured, 'No LLM provider is configured (LLM_BASE_URL)');
    }
  }

  /** The assistant's answer text. Times out after 20 s, retries once; throws LlmError when both fail. */
  async chat(
    messages: readonly ChatMessage[],
    options: { model?: string | null; temperature: number },
  ): Promise<string> {
    this.requireConfigured();
    const body = JSON.stringify({
      model: options.model || this.config.llm.model || 'default',
      messages,
      temperature: options.temperature,
      stream: false,
    });
    let last: unknown;
    for (let attempt = 1; attempt <= LLM_ATTEMPTS; attempt++) {
      try {
        const response = await fetch(this.url('/chat/completions'), {
          method: 'POST',
          headers: this.headers(),
          body,
          signal: AbortSignal.timeout(LLM_TIMEOUT_MS),
        });
        if (!response.ok) throw new LlmError(`LLM answered HTTP ${response.status}`);
        const json = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
        const content = json.choices?.[0]?.message?.content;
        if (typeof content !== 'string' || !content.trim()) throw new LlmError('LLM answered without text');
        return content.trim();
      } catch (error) {
        last = error;
        this.logger.warn({ attempt, err: (error as Error).message }, 'LLM call failed');
      }
    }
    throw new LlmError(last instanceof Error ? last.message : 'LLM call failed');
  }

  /** The server's models (`GET /models`); the configured LLM_MODEL when it cannot say. */
  async models(): Promise<string[]> {
    const fallback = this.config.llm.model ? [this.config.llm.model] : [];
    if (!this.configured) return fallback;
    try {
      const response = await fetch(this.url('/models'), {
        headers: this.headers(),
        signal: AbortSignal.timeout(5_000),
      });
      if (!response.ok) return fallback;
      const json = (await response.json()) as { data?: { id?: unknown }[]; models?: { name?: unknown }[] };
      const ids = (json.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
      return ids.length ? ids : fallback;
    } catch {
      return fallback;
    }
  }

  private url(path: string): string {
    return `${(this.config.llm.baseUrl ?? '').replace(/\/+$/, '')}${path}`;
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.config.llm.apiKey) headers.authorization = `Bearer ${this.config.llm.apiKey}`;
    return headers;
  }
}
