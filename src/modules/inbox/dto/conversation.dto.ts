import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { PRIORITIES, type Priority } from 'src/core/domain/vocabulary';
import {
  CONVERSATION_STATUSES,
  type ConversationStatus,
  type SuggestedReply,
  type WrapUp,
} from '../conversation.entity';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  MESSAGE_DIRECTIONS,
  MESSAGE_TYPES,
  type MessageAttachment,
  type MessageButton,
  type MessageDirection,
  type MessageType,
  SENDER_TYPES,
  type SenderType,
} from '../message.entity';
import { ConversationNoteResponse } from './conversation-actions.dto';

export class ContactSummary {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ nullable: true, type: String }) readonly name: string | null;
}

export class MessageAttachmentResponse {
  @ApiProperty({ example: 'image' }) readonly type: string;
  @ApiProperty() readonly url: string;
}

export class MessageButtonResponse {
  @ApiProperty() readonly title: string;
  @ApiProperty() readonly payload: string;
}

export class MessageResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ format: 'uuid' }) readonly conversationId: string;
  @ApiProperty({ enum: MESSAGE_DIRECTIONS }) readonly direction: MessageDirection;
  @ApiProperty({ enum: SENDER_TYPES }) readonly senderType: SenderType;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) readonly senderId: string | null;
  @ApiProperty({ enum: MESSAGE_TYPES }) readonly type: MessageType;
  @ApiProperty({ nullable: true, type: String }) readonly text: string | null;
  @ApiProperty({ type: [MessageAttachmentResponse] }) readonly attachments: MessageAttachment[];
  @ApiProperty({ type: [MessageButtonResponse] }) readonly buttons: MessageButton[];
  @ApiProperty({ nullable: true, type: String }) readonly postbackPayload: string | null;
  @ApiProperty({ nullable: true, type: String, description: "The platform's id of the message" }) readonly externalId:
    string | null;
  @ApiProperty({ enum: DELIVERY_STATUSES }) readonly deliveryStatus: DeliveryStatus;
  @ApiProperty({ nullable: true, type: String }) readonly deliveryError: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly sentAt: string | null;
  @ApiProperty() readonly createdAt: string;
}

export class WrapUpResponse {
  @ApiProperty({ nullable: true, type: String }) readonly outcome: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly note: string | null;
}

export class SuggestedReplyResponse {
  @ApiProperty() readonly text: string;
  @ApiProperty({ type: [String], description: 'Catalogue item ids the draft is about' }) readonly items: string[];
  @ApiProperty() readonly createdAt: string;
}

export class ConversationResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ format: 'uuid' }) readonly contactId: string;
  @ApiProperty({ type: ContactSummary }) readonly contact: ContactSummary;
  @ApiProperty({ format: 'uuid' }) readonly channelId: string;
  @ApiProperty() readonly channelType: string;
  @ApiProperty({ enum: CONVERSATION_STATUSES }) readonly status: ConversationStatus;
  @ApiProperty({ enum: PRIORITIES }) readonly priority: Priority;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) readonly queueId: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) readonly assigneeId: string | null;
  @ApiProperty({ type: [String] }) readonly tags: string[];
  @ApiProperty({ nullable: true, type: String }) readonly subject: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly lastMessageAt: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly lastMessagePreview: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly firstResponseAt: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly firstResponseDueAt: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly resolutionDueAt: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly resolvedAt: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly onHoldReason: string | null;
  @ApiProperty({ nullable: true, type: WrapUpResponse }) readonly wrapUp: WrapUp | null;
  @ApiProperty({ nullable: true, type: SuggestedReplyResponse }) readonly suggestedReply: SuggestedReply | null;
  @ApiProperty() readonly createdAt: string;
  @ApiProperty() readonly updatedAt: string;
}

export class ConversationDetailResponse extends ConversationResponse {
  @ApiProperty({
    type: [MessageResponse],
    description: 'Oldest first: the latest 100 (or the 100 before `messagesBefore`)',
  })
  readonly messages: MessageResponse[];

  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Pass as `?messagesBefore=` to get the previous (older) messages; null when there are none',
  })
  readonly messagesBefore: string | null;

  @ApiProperty({ type: [ConversationNoteResponse], description: 'Internal notes, oldest first (the latest 200)' })
  readonly notes: ConversationNoteResponse[];
}

export class ConversationPageResponse {
  @ApiProperty({ type: [ConversationResponse] }) readonly data: ConversationResponse[];
  @ApiProperty({ nullable: true, type: String }) readonly nextCursor: string | null;
}

export class GetConversationQuery {
  @ApiPropertyOptional({ description: 'Cursor from `messagesBefore` of a previous answer' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  readonly messagesBefore?: string;
}

export class OutboundAttachmentDto {
  @ApiProperty({ enum: ['image'], description: 'Only images can be sent' })
  @IsIn(['image'])
  readonly type: 'image';

  @ApiProperty({ example: 'https://example.com/photo.jpg' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  readonly url: string;
}

export class OutboundButtonDto {
  @ApiProperty({ example: 'Yes' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(80)
  readonly title: string;

  @ApiProperty({ example: 'CONFIRM_YES' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  readonly payload: string;
}

/** `POST /conversations/:id/messages`: text, one image (text becomes its caption), or text with buttons. */
export class SendMessageDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  readonly text?: string;

  @ApiPropertyOptional({ type: [OutboundAttachmentDto], maxItems: 1 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1)
  @ValidateNested({ each: true })
  @Type(() => OutboundAttachmentDto)
  readonly attachments?: OutboundAttachmentDto[];

  @ApiPropertyOptional({ type: [OutboundButtonDto], maxItems: 10, description: 'Needs text' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => OutboundButtonDto)
  readonly buttons?: OutboundButtonDto[];
}
