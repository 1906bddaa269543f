import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { API_TOKEN_PREFIX, hashApiToken } from 'src/core/auth/auth.guard';
import type { TokenGrant } from 'src/core/auth/principal';
import { AppException } from 'src/core/errors/app.exception';
import { ErrorCode } from 'src/core/errors/error-codes';
import type { CursorPaginationQuery, Page } from 'src/core/http/pagination';
import { mapPage } from 'src/core/http/pagination';
import { JobName } from 'src/core/queue/job-names';
import { JOB_QUEUE, type JobQueue } from 'src/core/queue/job-queue.port';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ApiTokensRepository } from './api-tokens.repository';
import {
  type ApiTokenResponse,
  type CreateApiTokenDto,
  type CreatedApiTokenResponse,
  toApiTokenResponse,
} from './dto/api-token.dto';
import type { ApiTokenTouchJobData } from './jobs/api-token-touch.job';

/** `lastUsedAt` is refreshed at most once a minute per token, off the request path. */
export const TOKEN_TOUCH_INTERVAL_MS = 60_000;

@Injectable()
export class ApiTokensService {
  constructor(
    private readonly tokens: ApiTokensRepository,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
  ) {}

  /** `sit_` + 32 random bytes; only its SHA-256 is stored, the token is returned this once. */
  async create(ctx: TenantContext, dto: CreateApiTokenDto): Promise<CreatedApiTokenResponse> {
    // No escalation (issue 9): a token may only mint tokens whose scopes it holds itself.
    if (ctx.actor.type === 'api_token') {
      const missing = (dto.scopes ?? []).filter((scope) => !ctx.scopes.includes(scope));
      if (missing.length) {
        throw new AppException(
          ErrorCode.InsufficientScope,
          `An API token can only create tokens with scopes it holds (missing: ${missing.join(', ')})`,
        );
      }
    }
    const expiresAt = dto.expiresAt ? new Date(dto.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) throw AppException.field('expiresAt', 'must be in the future');
    const token = `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const row = await this.tokens.insert({
      name: dto.name,
      prefix: token.slice(0, 8),
      tokenHash: hashApiToken(token),
      scopes: dto.scopes ?? [],
      createdBy: ctx.actor.userId,
      expiresAt,
    });
    return { ...toApiTokenResponse(row), token };
  }

  async list(_ctx: TenantContext, query: CursorPaginationQuery): Promise<Page<ApiTokenResponse>> {
    return mapPage(await this.tokens.findPage(query), toApiTokenResponse);
  }

  revoke(_ctx: TenantContext, id: string): Promise<void> {
    return this.tokens.revoke(id);
  }

  /** Called by the auth guard on every token request; enqueues at most one update a minute per token. */
  async recordUse(grant: TokenGrant): Promise<void> {
    if (grant.lastUsedAt && Date.now() - grant.lastUsedAt.getTime() < TOKEN_TOUCH_INTERVAL_MS) return;
    const data: ApiTokenTouchJobData = {
      workspaceId: grant.workspaceId,
      tokenId: grant.tokenId,
      usedAt: new Date().toISOString(),
    };
    await this.jobs.enqueue(JobName.ApiTokenTouch, data, { jobId: `token-touch:${grant.tokenId}` });
  }

  markUsed(tokenId: string, usedAt: Date): Promise<void> {
    return this.tokens.markUsed(tokenId, usedAt);
  }
}
