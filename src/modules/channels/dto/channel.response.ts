import { ApiProperty } from '@nestjs/swagger';
import {
  CHANNEL_STATUSES,
  CHANNEL_TYPES,
  type ChannelConfig,
  type ChannelStatus,
  type ChannelType,
} from '../channel.types';

export class ChannelResponse {
  @ApiProperty({ format: 'uuid', description: 'The connectionId (Custom Channel: part of the inbound path)' })
  readonly id: string;
  @ApiProperty({ enum: CHANNEL_TYPES }) readonly type: ChannelType;
  @ApiProperty() readonly name: string;
  @ApiProperty({ enum: CHANNEL_STATUSES }) readonly status: ChannelStatus;
  @ApiProperty({
    type: Object,
    description:
      'Non-secret ids: pageId, igAccountId, phoneNumberId, wabaId, botId, botUsername, lineDestination, outboundUrl…',
  })
  readonly config: ChannelConfig;
  @ApiProperty({ description: 'Where the platform (or your system) sends inbound events' }) readonly inboundUrl: string;
  @ApiProperty() readonly hasOutboundSecret: boolean;
  @ApiProperty() readonly createdAt: string;
  @ApiProperty({ nullable: true, type: String }) readonly disconnectedAt: string | null;
}
