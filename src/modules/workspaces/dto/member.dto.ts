import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { lower } from 'src/core/http/transforms';
import { IsEmail, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { ROLES, type Role } from 'src/core/auth/roles';

export class AddMemberDto {
  @ApiProperty({ example: 'agent@example.com' })
  @Transform(lower)
  @IsEmail()
  readonly email: string;

  @ApiProperty({ example: 'Ada Agent' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly name: string;

  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES)
  readonly role: Role;

  @ApiPropertyOptional({ minLength: 8, description: 'Required when no user with this email exists yet' })
  @IsOptional()
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  readonly password?: string;
}

export class UpdateMemberDto {
  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES)
  readonly role: Role;
}

export class UserIdParam {
  @ApiProperty({ format: 'uuid' })
  @IsString()
  readonly userId: string;
}

export class MemberResponse {
  @ApiProperty({ format: 'uuid' }) readonly userId: string;
  @ApiProperty() readonly email: string;
  @ApiProperty() readonly name: string;
  @ApiProperty({ enum: ROLES }) readonly role: Role;
  @ApiProperty() readonly createdAt: string;
}

export class ResetPasswordResponse {
  @ApiProperty({ format: 'uuid' }) readonly userId: string;
  @ApiProperty() readonly email: string;
  @ApiProperty({
    description: 'A generated password, shown once: hand it to the member, who changes it with PUT /auth/password',
  })
  readonly temporaryPassword: string;
}
