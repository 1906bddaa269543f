import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { sessionPriority } from 'src/core/database/session-priority';
import { type FastRequest, type FastRoute, FastRoutes } from 'src/core/http/fast-routes';
import { isUuid } from 'src/core/http/uuid';
import type { WebhookAckResponse } from '../events/dto/inbound-event.dto';
import { InboundWebhooksService } from './inbound-webhooks.service';

const PATH = /^\/custom-channel\/([^/]+)\/inbound\/?$/;
const TEMPLATE = '/custom-channel/:id/inbound';

/**
 * The Custom Channel acknowledgement's lean path (issue 16, DESIGN §15): a signed, valid message to
 * a known connection is stored (group commit) and answered here, without Nest's router, guard chain,
 * interceptors, validation pipe or the info-level request log line (a 200 ack is logged at debug).
 * Everything else — unknown or disconnected connection, plan, signature, a body that is not plainly
 * valid, a query string, an error — goes on to CustomChannelInboundController, which answers it
 * exactly as before. FastRoutes peeks at the raw body before any other middleware (the body stays
 * unread for the controller when this declines); the signature is checked on those bytes before
 * anything is stored.
 */
@Injectable()
export class CustomChannelFastAck implements FastRoute, OnModuleInit {
  readonly method = 'POST';
  readonly template = TEMPLATE;
  private readonly logger = new Logger('Webhooks');
  private readonly debug: boolean;
  /** One database session (embedded engine): the look-up and the INSERT go before queued pipeline work. */
  private readonly oneSession: boolean;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly routes: FastRoutes,
    private readonly webhooks: InboundWebhooksService,
  ) {
    this.debug = config.logLevel === 'debug' || config.logLevel === 'trace';
    this.oneSession = config.db.url === null;
  }

  onModuleInit(): void {
    this.routes.register(this);
  }

  match(path: string): Record<string, string> | null {
    const match = PATH.exec(path);
    return match && isUuid(match[1]) ? { id: match[1] } : null;
  }

  async answer({ params, headers, rawBody, body }: FastRequest): Promise<WebhookAckResponse | null> {
    const started = this.debug ? performance.now() : 0;
    const receive = () => this.webhooks.receiveFast('custom', { rawBody, headers, body, connectionId: params.id });
    // Foreground on the embedded engine's one session (look-up on a cache miss; the group commit marks
    // its own INSERTs). PostgreSQL has a pool of sessions and the acks their own pool: nothing to order.
    const ack = await (this.oneSession ? sessionPriority.foreground(receive) : receive());
    if (ack && this.debug) this.logger.debug(`POST ${TEMPLATE} 200 in ${Math.round(performance.now() - started)}ms`);
    return ack;
  }
}
