import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { APP_CONFIG } from 'src/core/config/config.constants';
import type { AppConfig } from 'src/core/config/app-config';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { ErrorCode } from 'src/core/errors/error-codes';
import { JWT_ALGORITHM } from 'src/core/auth/auth.guard';
import { RateLimiterService } from 'src/core/http/rate-limiter.service';
import { DUMMY_PASSWORD_HASH, type UserEntity, UsersService, verifyPassword } from 'src/modules/users';
import { WorkspacesService } from 'src/modules/workspaces';
import type { ChangePasswordDto, LoginDto, LoginResponse, SignupDto } from './dto/auth.dto';

@Injectable()
export class AuthService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tx: TransactionHost,
    private readonly jwt: JwtService,
    private readonly users: UsersService,
    private readonly workspaces: WorkspacesService,
    private readonly limiter: RateLimiterService,
  ) {}

  /**
   * Same answer for a wrong email and a wrong password; attempts are limited per IP + email and per
   * IP over all emails (a success resets only the first).
   */
  async login(dto: LoginDto, ip: string): Promise<LoginResponse> {
    const rule = this.config.auth.loginRateLimit;
    const key = `${ip}:${dto.email}`;
    await this.limiter.consume('login-ip', this.config.auth.loginIpRateLimit, ip);
    await this.limiter.consume('login', rule, key);
    const user = await this.users.findByEmail(dto.email);
    const ok = await verifyPassword(dto.password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if (!user || !ok) throw new AppException(ErrorCode.InvalidCredentials, 'Email or password is wrong');
    await this.limiter.reset('login', rule, key);
    await this.users.upgradePasswordHash(user, dto.password);
    return this.session(user);
  }

  /** A STARTER workspace with the caller as its ADMIN; returns the login response. */
  async signup(dto: SignupDto, ip: string): Promise<LoginResponse> {
    if (!this.config.auth.signupEnabled) throw AppException.forbidden('Sign-up is disabled on this server');
    await this.limiter.consume('signup', this.config.auth.signupRateLimit, ip);
    const user = await this.tx.run(async () => {
      const created = await this.users.create({ email: dto.email, name: dto.name, password: dto.password });
      await this.workspaces.create({ name: dto.workspaceName, plan: 'STARTER', ownerId: created.id });
      return created;
    });
    return this.session(user);
  }

  /** PUT /auth/password: wrong current passwords count against the login limit of this user. */
  async changePassword(userId: string, dto: ChangePasswordDto): Promise<void> {
    const rule = this.config.auth.loginRateLimit;
    const key = `password:${userId}`;
    await this.limiter.consume('login', rule, key);
    await this.users.changePassword(userId, dto.currentPassword, dto.newPassword);
    await this.limiter.reset('login', rule, key);
  }

  async session(user: UserEntity): Promise<LoginResponse> {
    const expiresIn = this.config.auth.jwtExpiresInSeconds;
    const accessToken = await this.jwt.signAsync({ sub: user.id }, { expiresIn, algorithm: JWT_ALGORITHM });
    const workspaces = await this.workspaces.listForUser(user.id);
    return {
      accessToken,
      tokenType: 'Bearer',
      expiresIn,
      user: { id: user.id, email: user.email, name: user.name },
      workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, role: w.role, plan: w.plan })),
    };
  }
}
