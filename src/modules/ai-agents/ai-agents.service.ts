import { Injectable } from '@nestjs/common';
import { AppException } from 'src/core/errors/app.exception';
import { type CursorPaginationQuery, type Page, mapPage } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ChannelsService } from 'src/modules/channels';
import type { AiAgentEntity } from './ai-agent.entity';
import { AiAgentsRepository } from './ai-agents.repository';
import { AiResponder, type Turn } from './ai-responder.service';
import {
  type AiAgentMetaResponse,
  type AiAgentResponse,
  type CreateAiAgentDto,
  MAX_HANDOFF_KEYWORDS,
  type PlaygroundDto,
  type PlaygroundResponse,
  type UpdateAiAgentDto,
} from './dto/ai-agent.dto';
import { LlmClient } from './llm/llm-client';

export const DEFAULT_TEMPERATURE = 0.3;
export const DEFAULT_HANDOFF_MESSAGE = 'Let me pass you to a colleague who can help.';

/** AI agents: settings (DESIGN §9), the providers' meta and the playground. */
@Injectable()
export class AiAgentsService {
  constructor(
    private readonly agents: AiAgentsRepository,
    private readonly channels: ChannelsService,
    private readonly responder: AiResponder,
    private readonly llm: LlmClient,
  ) {}

  async list(_ctx: TenantContext, query: CursorPaginationQuery): Promise<Page<AiAgentResponse>> {
    return mapPage(await this.agents.findPage(query), toResponse);
  }

  async get(_ctx: TenantContext, id: string): Promise<AiAgentResponse> {
    return toResponse(await this.agents.getById(id));
  }

  async create(ctx: TenantContext, dto: CreateAiAgentDto): Promise<AiAgentResponse> {
    await this.checkChannels(ctx, dto.channelIds);
    const row = await this.agents.insert({
      name: dto.name,
      active: dto.active ?? true,
      instructions: dto.instructions ?? '',
      channelIds: dto.channelIds ?? [],
      useCatalog: dto.useCatalog ?? true,
      handoffKeywords: dto.handoffKeywords ?? [],
      handoffMessage: dto.handoffMessage === undefined ? DEFAULT_HANDOFF_MESSAGE : dto.handoffMessage,
      provider: dto.provider ?? 'BUILTIN',
      model: dto.model ?? null,
      temperature: dto.temperature ?? DEFAULT_TEMPERATURE,
    });
    return toResponse(row);
  }

  /** Only the fields sent change. */
  async update(ctx: TenantContext, id: string, dto: UpdateAiAgentDto): Promise<AiAgentResponse> {
    await this.agents.getById(id);
    await this.checkChannels(ctx, dto.channelIds);
    const patch: Omit<Partial<AiAgentEntity>, 'id' | 'workspaceId'> = {};
    if (dto.name !== undefined) patch.name = dto.name;
    if (dto.active !== undefined) patch.active = dto.active;
    if (dto.instructions !== undefined) patch.instructions = dto.instructions;
    if (dto.channelIds !== undefined) patch.channelIds = dto.channelIds;
    if (dto.useCatalog !== undefined) patch.useCatalog = dto.useCatalog;
    if (dto.handoffKeywords !== undefined) patch.handoffKeywords = dto.handoffKeywords;
    if (dto.handoffMessage !== undefined) patch.handoffMessage = dto.handoffMessage;
    if (dto.provider !== undefined) patch.provider = dto.provider;
    if (dto.model !== undefined) patch.model = dto.model;
    if (dto.temperature !== undefined) patch.temperature = dto.temperature;
    return toResponse(await this.agents.update(id, patch));
  }

  async remove(_ctx: TenantContext, id: string): Promise<void> {
    await this.agents.deleteById(id);
  }

  async meta(_ctx: TenantContext): Promise<AiAgentMetaResponse> {
    return {
      providers: [
        { provider: 'BUILTIN', configured: true, models: [] },
        { provider: 'OPENAI_COMPATIBLE', configured: this.llm.configured, models: await this.llm.models() },
      ],
      defaults: {
        provider: 'BUILTIN',
        model: this.llm.defaultModel,
        temperature: DEFAULT_TEMPERATURE,
        useCatalog: true,
        handoffMessage: DEFAULT_HANDOFF_MESSAGE,
        maxHandoffKeywords: MAX_HANDOFF_KEYWORDS,
      },
    };
  }

  /** Answers as the agent would, storing nothing. */
  async playground(_ctx: TenantContext, id: string, dto: PlaygroundDto): Promise<PlaygroundResponse> {
    const agent = await this.agents.getById(id);
    const started = performance.now();
    const turns: Turn[] = [...(dto.history ?? []), { role: 'customer', text: dto.message }];
    const run = await this.responder.respond(
      {
        id: agent.id,
        provider: agent.provider,
        instructions: agent.instructions,
        useCatalog: agent.useCatalog,
        handoffKeywords: agent.handoffKeywords,
        model: agent.model,
        temperature: agent.temperature,
      },
      turns,
    );
    const reply = run.handoff ? (agent.handoffMessage ?? '') : run.text;
    return {
      reply,
      items: run.items,
      handoff: run.handoff,
      provider: run.provider,
      latencyMs: Math.round(performance.now() - started),
      ...(run.images.length ? { images: run.images.map((i) => i.url) } : {}),
      ...(run.reason ? { reason: run.reason } : {}),
    };
  }

  /** Every channel named must be one of this workspace's (400 naming the first that is not). */
  private async checkChannels(ctx: TenantContext, channelIds: readonly string[] | undefined): Promise<void> {
    for (const [index, channelId] of (channelIds ?? []).entries()) {
      try {
        await this.channels.get(ctx, channelId);
      } catch (error) {
        if (error instanceof AppException && error.status === 404) {
          throw AppException.field(`channelIds.${index}`, 'is not a channel of this workspace');
        }
        throw error;
      }
    }
  }
}

function toResponse(a: AiAgentEntity): AiAgentResponse {
  return {
    id: a.id,
    name: a.name,
    active: a.active,
    instructions: a.instructions,
    channelIds: a.channelIds,
    useCatalog: a.useCatalog,
    handoffKeywords: a.handoffKeywords,
    handoffMessage: a.handoffMessage,
    provider: a.provider,
    model: a.model,
    temperature: Math.round(a.temperature * 1000) / 1000,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}
