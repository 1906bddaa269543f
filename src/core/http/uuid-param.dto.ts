import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';

/**
 * `:id` path parameter. It is not rejected with 400 when it is not a UUID: repositories answer such
 * an id with 404, exactly like an unknown id (DESIGN §2, STYLE §6), and it never reaches SQL.
 */
export class IdParam {
  @ApiProperty({ format: 'uuid' })
  @IsString()
  readonly id: string;
}
