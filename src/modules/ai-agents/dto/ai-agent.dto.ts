import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { AI_PROVIDERS, type AiProvider } from '../ai-agent.entity';

/** DESIGN §9 / issue 13: at most this many handoff keywords per agent. */
export const MAX_HANDOFF_KEYWORDS = 50;

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const upper = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim().toUpperCase() : value;
const lowerEach = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v)) : value;
const trimEach = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v.trim() : v)) : value;
/** Present (even null) → validate; absent → skip. */
const isPresent = (_: object, value: unknown): boolean => value !== undefined;

export class CreateAiAgentDto {
  @ApiProperty({ maxLength: 200, example: 'Shop assistant' })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  readonly name: string;

  @ApiPropertyOptional({ default: true })
  @ValidateIf(isPresent)
  @IsBoolean()
  readonly active?: boolean;

  @ApiPropertyOptional({ maxLength: 8000, description: 'What the agent is told (LLM system prompt)' })
  @ValidateIf(isPresent)
  @IsString()
  @MaxLength(8000)
  readonly instructions?: string;

  @ApiPropertyOptional({ type: [String], format: 'uuid', description: 'Channels it answers on; empty = all' })
  @ValidateIf(isPresent)
  @IsArray()
  @ArrayMaxSize(100)
  @Transform(lowerEach)
  @IsUUID('all', { each: true })
  @ArrayUnique()
  readonly channelIds?: string[];

  @ApiPropertyOptional({ default: true, description: 'Answer from the catalogue' })
  @ValidateIf(isPresent)
  @IsBoolean()
  readonly useCatalog?: boolean;

  @ApiPropertyOptional({ type: [String], maxItems: MAX_HANDOFF_KEYWORDS, description: 'Words that always hand off' })
  @ValidateIf(isPresent)
  @IsArray()
  @ArrayMaxSize(MAX_HANDOFF_KEYWORDS)
  @Transform(trimEach)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(100, { each: true })
  readonly handoffKeywords?: string[];

  @ApiPropertyOptional({ nullable: true, maxLength: 2000, description: 'Sent once when the agent hands off' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  readonly handoffMessage?: string | null;

  @ApiPropertyOptional({ enum: AI_PROVIDERS, default: 'BUILTIN' })
  @ValidateIf(isPresent)
  @Transform(upper)
  @IsIn(AI_PROVIDERS)
  readonly provider?: AiProvider;

  @ApiPropertyOptional({ nullable: true, maxLength: 200, description: 'OPENAI_COMPATIBLE model; default LLM_MODEL' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  readonly model?: string | null;

  @ApiPropertyOptional({ minimum: 0, maximum: 2, default: 0.3 })
  @ValidateIf(isPresent)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(2)
  readonly temperature?: number;
}

/** PUT: only the fields sent change. */
export class UpdateAiAgentDto extends CreateAiAgentDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @ValidateIf(isPresent)
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  declare readonly name: string;
}

export class AiAgentResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly name: string;
  @ApiProperty() readonly active: boolean;
  @ApiProperty() readonly instructions: string;
  @ApiProperty({ type: [String] }) readonly channelIds: string[];
  @ApiProperty() readonly useCatalog: boolean;
  @ApiProperty({ type: [String] }) readonly handoffKeywords: string[];
  @ApiProperty({ nullable: true, type: String }) readonly handoffMessage: string | null;
  @ApiProperty({ enum: AI_PROVIDERS }) readonly provider: AiProvider;
  @ApiProperty({ nullable: true, type: String }) readonly model: string | null;
  @ApiProperty() readonly temperature: number;
  @ApiProperty() readonly createdAt: Date;
  @ApiProperty() readonly updatedAt: Date;
}

export class AiAgentListResponse {
  @ApiProperty({ type: [AiAgentResponse] }) readonly data: AiAgentResponse[];
  @ApiProperty({ nullable: true, type: String }) readonly nextCursor: string | null;
}

export class AiProviderMeta {
  @ApiProperty({ enum: AI_PROVIDERS }) readonly provider: AiProvider;
  @ApiProperty() readonly configured: boolean;
  @ApiProperty({ type: [String] }) readonly models: string[];
}

export class AiAgentDefaults {
  @ApiProperty({ enum: AI_PROVIDERS }) readonly provider: AiProvider;
  @ApiProperty({ nullable: true, type: String }) readonly model: string | null;
  @ApiProperty() readonly temperature: number;
  @ApiProperty() readonly useCatalog: boolean;
  @ApiProperty() readonly handoffMessage: string;
  @ApiProperty() readonly maxHandoffKeywords: number;
}

export class AiAgentMetaResponse {
  @ApiProperty({ type: [AiProviderMeta] }) readonly providers: AiProviderMeta[];
  @ApiProperty({ type: AiAgentDefaults }) readonly defaults: AiAgentDefaults;
}

export class PlaygroundTurnDto {
  @ApiProperty({ enum: ['customer', 'agent'] })
  @IsIn(['customer', 'agent'])
  readonly role: 'customer' | 'agent';

  @ApiProperty({ maxLength: 4000 })
  @IsString()
  @MaxLength(4000)
  readonly text: string;
}

export class PlaygroundDto {
  @ApiProperty({ maxLength: 4000, example: 'How much is the Aurora kettle?' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(4000)
  readonly message: string;

  @ApiPropertyOptional({ type: [PlaygroundTurnDto], description: 'Earlier turns, oldest first' })
  @ValidateIf(isPresent)
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => PlaygroundTurnDto)
  readonly history?: PlaygroundTurnDto[];
}

export class PlaygroundResponse {
  @ApiProperty() readonly reply: string;
  @ApiProperty({ type: [String], description: 'Catalogue item ids the reply is about' }) readonly items: string[];
  @ApiProperty() readonly handoff: boolean;
  @ApiProperty({ enum: AI_PROVIDERS }) readonly provider: AiProvider;
  @ApiProperty() readonly latencyMs: number;
  @ApiPropertyOptional({ type: [String], description: 'Image URLs the agent would send' }) readonly images?: string[];
  @ApiPropertyOptional({ description: 'Why it handed off, or why the LLM answer was replaced' })
  readonly reason?: string;
}

export class AiReplyDto {
  @ApiPropertyOptional({ default: false, description: 'Send the draft to the customer (as an AI reply)' })
  @ValidateIf(isPresent)
  @IsBoolean()
  readonly send?: boolean;
}

export class AiReplyResponse {
  @ApiProperty() readonly text: string;
  @ApiProperty({ type: [String] }) readonly items: string[];
  @ApiProperty() readonly sent: boolean;
  @ApiPropertyOptional({ format: 'uuid' }) readonly messageId?: string;
}

export class TranslateDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'A message of the conversation to translate' })
  @ValidateIf((o: TranslateDto) => o.text === undefined || o.messageId !== undefined)
  @IsUUID('all')
  readonly messageId?: string;

  @ApiPropertyOptional({ maxLength: 8000, description: 'Text to translate (instead of messageId)' })
  @ValidateIf((o: TranslateDto) => o.messageId === undefined || o.text !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(8000)
  readonly text?: string;

  @ApiProperty({ example: 'es', maxLength: 40, description: 'Language code or name' })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(40)
  readonly targetLanguage: string;
}

export class TranslateResponse {
  @ApiProperty() readonly text: string;
  @ApiPropertyOptional() readonly sourceLanguage?: string;
  @ApiProperty() readonly targetLanguage: string;
}
