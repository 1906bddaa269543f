import { AppException } from 'src/core/errors/app.exception';
import { ErrorCode } from 'src/core/errors/error-codes';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type {
  ChannelConfig,
  ChannelSecrets,
  ChannelType,
  ContactProfile,
  DeliveryResult,
  DeliveryTarget,
  InboundEventDraft,
  NormalizedInbound,
  OpenedConnection,
  OutboundContent,
} from '../channel.types';
import type { ConnectChannelDto } from '../dto/connect-channel.dto';
import type { Json } from './json.util';

export type WebhookHeaders = Record<string, string | string[] | undefined>;

/** One webhook request as the receiver got it: verify on `rawBody`, read `body`. */
export interface WebhookRequest {
  readonly rawBody: Buffer | undefined;
  readonly headers: WebhookHeaders;
  readonly body: unknown;
  /** The connection id the URL names (the Custom Channel's `/custom-channel/:id/inbound`). */
  readonly connectionId?: string;
}

/** A connection ready to be stored by `POST /channels/connect`. */
export interface NewConnection {
  readonly type: ChannelType;
  readonly name: string;
  readonly config: ChannelConfig;
  readonly secrets: ChannelSecrets;
  /** The platform account id webhooks name (unique among ACTIVE connections of a type). */
  readonly routingKey: string | null;
  /** Telegram: sha256 of the secret token its webhook requests carry. */
  readonly secretTokenHash?: string | null;
}

/**
 * Everything the service knows about one platform, in one place (DESIGN §4). An adapter serves one or
 * more channel types (Meta's Messenger, Instagram and WhatsApp share one webhook and one Graph API);
 * the registry (ChannelAdapters) finds it by type or by webhook name, and nothing outside the adapter
 * branches on the type. Add a platform: see docs/architecture.md, "Add a platform".
 */
export interface ChannelAdapter {
  /** The channel types this adapter serves. */
  readonly types: readonly ChannelType[];
  /** The name in `/webhooks/<name>` (or the receiver's name, e.g. `custom`); unique among adapters. */
  readonly webhook: string;
  /** Replies may use a short-lived reply token taken from the customer's last inbound event (LINE). */
  readonly usesReplyToken: boolean;

  /** The URL a connection receives its inbound events on (shown as `inboundUrl`). */
  inboundUrl(publicBaseUrl: string, connectionId: string): string;

  /**
   * Finds the connection(s) a webhook request names, verifies its signature on the raw bytes
   * (constant-time) and splits it into events to store; throws `invalid_signature` (401) when it does
   * not verify, stores nothing then. Runs outside any workspace (ChannelDirectory is cross-tenant).
   */
  receive(request: WebhookRequest): Promise<InboundEventDraft[]>;

  /**
   * Optional lean `receive` for the acknowledgement's hot path (issue 16): the same drafts for the
   * ordinary valid request, null whenever it is not sure (then `receive` runs and gives the answer).
   * Never throws for a bad request.
   */
  receiveFast?(request: WebhookRequest): Promise<InboundEventDraft[] | null>;

  /** A subscription handshake (`GET /webhooks/<name>`), for platforms that have one: the text to echo. */
  verifySubscription?(query: Record<string, unknown>): Promise<string>;

  /** A stored event's payload in the platform-neutral form the processor works with. Pure. */
  normalize(type: ChannelType, payload: Json, receivedAt: Date): NormalizedInbound;

  /** Sends text, an image or buttons; a PermanentDeliveryError when retrying cannot help. */
  send(target: DeliveryTarget, content: OutboundContent): Promise<DeliveryResult>;

  /** The customer's profile, for platforms whose webhooks carry no name; absent or null otherwise. */
  fetchProfile?(connection: OpenedConnection, externalId: string): Promise<ContactProfile | null>;

  /** Checks the connect request against the platform (tokens, webhook set-up) and returns what to store. */
  prepareConnection(ctx: TenantContext, dto: ConnectChannelDto): Promise<NewConnection>;

  /** Best-effort clean-up at the platform when a connection is disconnected (e.g. remove a webhook). */
  onDisconnect?(connection: OpenedConnection): Promise<void>;
}

/** The one answer to a webhook whose signature is missing or wrong (401, nothing stored). */
export function invalidSignature(): AppException {
  return new AppException(ErrorCode.InvalidSignature, 'The webhook signature is missing or wrong');
}

/** A field the connect DTO's per-type validation already guaranteed. */
export function required(value: string | undefined): string {
  if (value === undefined) throw AppException.validation('A required field is missing');
  return value;
}
