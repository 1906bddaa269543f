import { Body, Controller, HttpCode, Post, Put, Req } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { NoWorkspace, Public } from 'src/core/auth/decorators/auth.decorators';
import { CurrentPrincipal } from 'src/core/auth/decorators/current-ctx.decorator';
import type { Principal } from 'src/core/auth/principal';
import { AppException } from 'src/core/errors/app.exception';
import { AuthService } from './auth.service';
import { ChangePasswordDto, LoginDto, LoginResponse, SignupDto } from './dto/auth.dto';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @Public()
  @HttpCode(200)
  @ApiOkResponse({ type: LoginResponse })
  @ApiTooManyRequestsResponse({ description: 'rate_limited, with Retry-After' })
  @ApiOperation({ summary: 'Log in with email and password' })
  login(@Body() dto: LoginDto, @Req() request: Request): Promise<LoginResponse> {
    return this.auth.login(dto, request.ip ?? 'unknown');
  }

  @Post('signup')
  @Public()
  @HttpCode(201)
  @ApiCreatedResponse({ type: LoginResponse })
  @ApiOperation({ summary: 'Sign up: a new STARTER workspace with the caller as admin' })
  signup(@Body() dto: SignupDto, @Req() request: Request): Promise<LoginResponse> {
    return this.auth.signup(dto, request.ip ?? 'unknown');
  }

  @Put('password')
  @NoWorkspace()
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Changed; log in with the new password from now on' })
  @ApiOperation({ summary: "Change the caller's password (current and new)" })
  async changePassword(@CurrentPrincipal() principal: Principal, @Body() dto: ChangePasswordDto): Promise<void> {
    if (principal.type !== 'user') throw AppException.forbidden('API tokens have no password; log in as a user');
    await this.auth.changePassword(principal.userId, dto);
  }
}
