import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { lower } from 'src/core/http/transforms';
import { IsEmail, IsNotEmpty, IsString, MaxLength, MinLength } from 'class-validator';

export class LoginDto {
  @ApiProperty({ example: 'admin@example.com' })
  @Transform(lower)
  @IsEmail()
  readonly email: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  readonly password: string;
}

export class SignupDto {
  @ApiProperty({ example: 'Acme Support' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly workspaceName: string;

  @ApiProperty({ example: 'Ada Admin' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly name: string;

  @ApiProperty({ example: 'ada@example.com' })
  @Transform(lower)
  @IsEmail()
  readonly email: string;

  @ApiProperty({ minLength: 8 })
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  readonly password: string;
}

export class LoginUser {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly email: string;
  @ApiProperty() readonly name: string;
}

export class LoginWorkspace {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly name: string;
  @ApiProperty() readonly role: string;
  @ApiProperty() readonly plan: string;
}

export class LoginResponse {
  @ApiProperty() readonly accessToken: string;
  @ApiProperty({ example: 'Bearer' }) readonly tokenType: 'Bearer';
  @ApiProperty({ description: 'Seconds until the token expires' }) readonly expiresIn: number;
  @ApiProperty({ type: LoginUser }) readonly user: LoginUser;
  @ApiProperty({ type: [LoginWorkspace] }) readonly workspaces: LoginWorkspace[];
}

export class ChangePasswordDto {
  @ApiProperty({ description: 'The password used to log in now' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  readonly currentPassword: string;

  @ApiProperty({ minLength: 8, maxLength: 200 })
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  readonly newPassword: string;
}
