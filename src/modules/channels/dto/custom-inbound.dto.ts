import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

export class CustomInboundAttachmentDto {
  @ApiProperty({ example: 'image', description: '`image` makes the message IMAGE; other kinds FILE' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  readonly type: string;

  @ApiProperty({ example: 'https://example.com/photo.jpg' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  readonly url: string;
}

/** The Custom Channel inbound message (SPEC §2). Validated after the signature. */
export class CustomInboundMessageDto {
  @ApiProperty({ description: "Stable id of the customer in the caller's system" })
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  readonly senderId: string;

  @ApiPropertyOptional({ description: 'Names the contact on the first message' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  readonly senderName?: string;

  @ApiPropertyOptional({ description: 'One of text, attachments or postbackPayload is required' })
  @IsOptional()
  @IsString()
  @MaxLength(20_000)
  readonly text?: string;

  @ApiPropertyOptional({ type: [CustomInboundAttachmentDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => CustomInboundAttachmentDto)
  readonly attachments?: CustomInboundAttachmentDto[];

  @ApiPropertyOptional({ description: 'Button click payload (type POSTBACK); drives flows' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  readonly postbackPayload?: string;

  @ApiPropertyOptional({ description: 'Unix time in seconds (< 10¹²) or milliseconds' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  readonly timestamp?: number;

  @ApiPropertyOptional({ description: 'Your id of the message: a second request with the same id creates nothing' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  readonly messageId?: string;
}
