import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from 'src/core/auth/decorators/auth.decorators';
import { AuthService } from './auth.service';
import { LoginDto, LoginResponse, SignupDto } from './dto/auth.dto';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @Public()
  @HttpCode(200)
  @ApiOkResponse({ type: LoginResponse })
  @ApiTooManyRequestsResponse({ description: 'rate_limited, with Retry-After' })
  login(@Body() dto: LoginDto, @Req() request: Request): Promise<LoginResponse> {
    return this.auth.login(dto, request.ip ?? 'unknown');
  }

  @Post('signup')
  @Public()
  @HttpCode(201)
  @ApiCreatedResponse({ type: LoginResponse })
  signup(@Body() dto: SignupDto, @Req() request: Request): Promise<LoginResponse> {
    return this.auth.signup(dto, request.ip ?? 'unknown');
  }
}
