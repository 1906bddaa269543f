/** The channels a workspace can connect (DESIGN §4.1). Meta's three share one webhook. */
export const CHANNEL_TYPES = ['MESSENGER', 'INSTAGRAM', 'WHATSAPP', 'TELEGRAM', 'LINE', 'CUSTOM'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const META_CHANNEL_TYPES: readonly ChannelType[] = ['MESSENGER', 'INSTAGRAM', 'WHATSAPP'];

export const CHANNEL_STATUSES = ['ACTIVE', 'DISCONNECTED'] as const;
export type ChannelStatus = (typeof CHANNEL_STATUSES)[number];

/** Secrets of a connection, sealed together with SecretBox; never returned by any endpoint. */
export interface ChannelSecrets {
  readonly accessToken?: string;
  readonly appSecret?: string;
  readonly verifyToken?: string;
  readonly botToken?: string;
  readonly secretToken?: string;
  readonly channelSecret?: string;
  readonly inboundSecret?: string;
  readonly outboundSecret?: string;
}

/** Non-secret ids of a connection, returned as `config`. */
export interface ChannelConfig {
  readonly pageId?: string;
  readonly igAccountId?: string;
  readonly phoneNumberId?: string;
  readonly wabaId?: string;
  readonly botId?: string;
  readonly botUsername?: string;
  readonly lineDestination?: string;
  readonly lineBasicId?: string;
  readonly outboundUrl?: string;
}

/** A connection with its secrets opened, for webhook verification and delivery. */
export interface OpenedConnection {
  readonly id: string;
  readonly workspaceId: string;
  readonly type: ChannelType;
  readonly name: string;
  readonly status: ChannelStatus;
  readonly config: ChannelConfig;
  readonly secrets: ChannelSecrets;
}

export interface ContactProfile {
  readonly name?: string | null;
  readonly avatarUrl?: string | null;
  readonly email?: string | null;
  readonly phone?: string | null;
}

export type InboundMessageType = 'TEXT' | 'IMAGE' | 'FILE' | 'POSTBACK';

export interface InboundAttachment {
  readonly type: string;
  readonly url: string;
}

export interface AdReferral {
  readonly adId: string | null;
  readonly source: string | null;
  readonly ref: string | null;
}

/** One customer message in the platform-neutral form the processor stores. */
export interface InboundMessage {
  readonly externalId: string | null;
  readonly type: InboundMessageType;
  readonly text: string | null;
  readonly attachments: InboundAttachment[];
  readonly postbackPayload: string | null;
  readonly sentAt: Date | null;
  readonly referral: AdReferral | null;
}

export type DeliveryUpdate = 'SENT' | 'DELIVERED' | 'READ' | 'FAILED';

/** What one stored inbound event means, once normalised. */
export type NormalizedInbound =
  | {
      readonly kind: 'message';
      readonly sender: { readonly externalId: string; readonly profile: ContactProfile };
      readonly message: InboundMessage;
      /** LINE: the token to reply with, and until when it is usable. */
      readonly replyToken: { readonly token: string; readonly expiresAt: Date } | null;
    }
  | {
      readonly kind: 'delivery';
      readonly externalMessageId: string;
      readonly update: DeliveryUpdate;
      readonly error: string | null;
    }
  | { readonly kind: 'ignored'; readonly reason: string };

/** An event split out of a webhook request, ready to be stored (one row of inbound_events). */
export interface InboundEventDraft {
  readonly connection: { readonly id: string; readonly workspaceId: string; readonly type: ChannelType };
  readonly senderKey: string | null;
  readonly externalId: string | null;
  readonly payload: Record<string, unknown>;
}

export type OutboundMessageType = 'TEXT' | 'IMAGE' | 'BUTTONS';

export interface OutboundButton {
  readonly title: string;
  readonly payload: string;
}

/** A reply in the platform-neutral form channel adapters send. */
export interface OutboundContent {
  readonly type: OutboundMessageType;
  readonly text: string | null;
  readonly imageUrl: string | null;
  readonly buttons: OutboundButton[];
}

export interface DeliveryTarget {
  readonly connection: OpenedConnection;
  /** The customer's id on the channel (PSID, IGSID, wa_id, Telegram chat id, LINE user id, Custom senderId). */
  readonly recipientId: string;
  /** LINE: a fresh reply token to use instead of a push, if one was claimed. */
  readonly replyToken: string | null;
}

export interface DeliveryResult {
  /** The platform's id of the sent message, when it returns one. */
  readonly externalId: string | null;
}

/** A delivery that retrying cannot fix (disconnected channel, refused URL). */
export class PermanentDeliveryError extends Error {}
