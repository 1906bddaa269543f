import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { CursorPaginationQuery } from 'src/core/http/pagination';
import { CHANNEL_STATUSES, CHANNEL_TYPES, type ChannelStatus, type ChannelType } from '../channel.types';

interface Body {
  readonly type?: unknown;
  readonly embeddedSignupCode?: unknown;
  readonly phoneNumberId?: unknown;
  readonly wabaId?: unknown;
}
const isType =
  (...types: ChannelType[]) =>
  (o: Body): boolean =>
    types.some((t) => t === o.type);
const whatsAppWithoutSignup = (o: Body): boolean => o.type === 'WHATSAPP' && o.embeddedSignupCode === undefined;

/**
 * `POST /channels/connect` (DESIGN §4.1). One body for every type; the fields each type requires are
 * validated for that type only. Secrets are encrypted at rest and never returned.
 */
export class ConnectChannelDto {
  @ApiProperty({ enum: CHANNEL_TYPES })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toUpperCase() : value))
  @IsIn(CHANNEL_TYPES)
  readonly type: ChannelType;

  @ApiPropertyOptional({ description: 'Display name (defaults to the platform name of the account)' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly name?: string;

  @ApiPropertyOptional({ description: 'CUSTOM: display name (required)' })
  @ValidateIf(isType('CUSTOM'))
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly displayName?: string;

  @ApiPropertyOptional({ description: 'CUSTOM: secret that signs inbound requests (required)' })
  @ValidateIf(isType('CUSTOM'))
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  readonly inboundSecret?: string;

  @ApiPropertyOptional({ description: 'CUSTOM: where replies are POSTed (required, http/https)' })
  @ValidateIf(isType('CUSTOM'))
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  readonly outboundUrl?: string;

  @ApiPropertyOptional({ description: 'CUSTOM: when set, outbound requests carry X-Service-Signature' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  readonly outboundSecret?: string;

  @ApiPropertyOptional({ description: 'MESSENGER: Facebook page id (required)' })
  @ValidateIf(isType('MESSENGER'))
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  readonly pageId?: string;

  @ApiPropertyOptional({ description: 'MESSENGER: page access token (required)' })
  @ValidateIf(isType('MESSENGER'))
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  readonly pageAccessToken?: string;

  @ApiPropertyOptional({ description: 'INSTAGRAM: Instagram professional account id (required)' })
  @ValidateIf(isType('INSTAGRAM'))
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  readonly igAccountId?: string;

  @ApiPropertyOptional({ description: 'INSTAGRAM, WHATSAPP: access token (required unless embeddedSignupCode)' })
  @ValidateIf((o: Body) => isType('INSTAGRAM')(o) || whatsAppWithoutSignup(o))
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  readonly accessToken?: string;

  @ApiPropertyOptional({ description: 'WHATSAPP: phone number id (required unless embeddedSignupCode)' })
  @ValidateIf((o: Body) => whatsAppWithoutSignup(o) || (o.type === 'WHATSAPP' && o.phoneNumberId !== undefined))
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  readonly phoneNumberId?: string;

  @ApiPropertyOptional({ description: 'WHATSAPP: WhatsApp Business Account id (required unless embeddedSignupCode)' })
  @ValidateIf((o: Body) => whatsAppWithoutSignup(o) || (o.type === 'WHATSAPP' && o.wabaId !== undefined))
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  readonly wabaId?: string;

  @ApiPropertyOptional({ description: 'WHATSAPP: code from Meta embedded signup, exchanged through the Graph API' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  readonly embeddedSignupCode?: string;

  @ApiPropertyOptional({ description: 'MESSENGER, INSTAGRAM, WHATSAPP: app secret (else META_APP_SECRET)' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  readonly appSecret?: string;

  @ApiPropertyOptional({ description: 'MESSENGER, INSTAGRAM, WHATSAPP: token for the GET /webhooks/meta handshake' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  readonly verifyToken?: string;

  @ApiPropertyOptional({ description: 'TELEGRAM: bot token from @BotFather (required)' })
  @ValidateIf(isType('TELEGRAM'))
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  readonly botToken?: string;

  @ApiPropertyOptional({ description: 'LINE: channel secret (required)' })
  @ValidateIf(isType('LINE'))
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  readonly channelSecret?: string;

  @ApiPropertyOptional({ description: 'LINE: long-lived channel access token (required)' })
  @ValidateIf(isType('LINE'))
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  readonly channelAccessToken?: string;
}

export class ListChannelsQuery extends CursorPaginationQuery {
  @ApiPropertyOptional({ enum: CHANNEL_TYPES })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toUpperCase() : value))
  @IsIn(CHANNEL_TYPES)
  readonly type?: ChannelType;

  @ApiPropertyOptional({ enum: CHANNEL_STATUSES })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toUpperCase() : value))
  @IsIn(CHANNEL_STATUSES)
  readonly status?: ChannelStatus;
}
