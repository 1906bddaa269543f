import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { AppException } from 'src/core/errors/app.exception';
import { type Page, mapPage } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { ChannelConnectionEntity } from './channel-connection.entity';
import { toChannelResponse } from './channel.mapper';
import { ChannelSecretsService } from './channel-secrets.service';
import { ChannelsRepository } from './channels.repository';
import type { ChannelResponse } from './dto/channel.response';
import type { ConnectChannelDto, ListChannelsQuery } from './dto/connect-channel.dto';
import { ChannelAdapters } from './platforms/channel-adapters';
import { sha256Hex } from './platforms/signature.util';

/**
 * Channel connections (DESIGN §4.1): connect, list, disconnect. What differs per platform (checking
 * the tokens, setting up its webhook, cleaning up) is its ChannelAdapter's.
 */
@Injectable()
export class ChannelsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly channels: ChannelsRepository,
    private readonly secrets: ChannelSecretsService,
    private readonly adapters: ChannelAdapters,
  ) {}

  async list(_ctx: TenantContext, query: ListChannelsQuery): Promise<Page<ChannelResponse>> {
    const page = await this.channels.findPage(query, { type: query.type, status: query.status });
    return mapPage(page, (c) => this.response(c));
  }

  async get(_ctx: TenantContext, id: string): Promise<ChannelResponse> {
    return this.response(await this.channels.getById(id));
  }

  async connect(ctx: TenantContext, dto: ConnectChannelDto): Promise<ChannelResponse> {
    const connection = await this.adapters.forType(dto.type).prepareConnection(ctx, dto);
    const row = await this.channels.create({
      type: connection.type,
      name: connection.name,
      status: 'ACTIVE',
      config: connection.config,
      secrets: this.secrets.seal(connection.secrets),
      routingKey: connection.routingKey,
      secretTokenHash: connection.secretTokenHash ?? null,
      verifyTokenHash: connection.secrets.verifyToken ? sha256Hex(connection.secrets.verifyToken) : null,
      hasOutboundSecret: Boolean(connection.secrets.outboundSecret),
    });
    return this.response(row);
  }

  /** Disconnects: secrets erased, conversations kept; later inbound to it is refused. The platform cleans up (e.g. Telegram's webhook). */
  async disconnect(_ctx: TenantContext, id: string): Promise<void> {
    const row = await this.channels.getById(id);
    if (row.status !== 'ACTIVE') throw AppException.notFound('Channel');
    const adapter = this.adapters.forType(row.type);
    if (adapter.onDisconnect) await adapter.onDisconnect(this.secrets.open(row));
    // The repository tells the connection caches (ChannelDirectory) of every process.
    await this.channels.disconnect(id);
  }

  private response(row: ChannelConnectionEntity): ChannelResponse {
    return toChannelResponse(row, this.adapters.forType(row.type).inboundUrl(this.config.publicBaseUrl, row.id));
  }
}
