import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { AppException } from 'src/core/errors/app.exception';
import { randomBytes } from 'node:crypto';
import { hashPassword, needsRehash, verifyPassword } from './password.util';
import type { UserEntity } from './user.entity';
import { UsersRepository } from './users.repository';

export interface UserSummary {
  readonly id: string;
  readonly email: string;
  readonly name: string;
}

export function toUserSummary(user: UserEntity): UserSummary {
  return { id: user.id, email: user.email, name: user.name };
}

@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findByEmail(email);
  }

  findById(id: string): Promise<UserEntity | null> {
    return this.users.findById(id);
  }

  async summaries(ids: readonly string[]): Promise<Map<string, UserSummary>> {
    const users = await this.users.findByIds([...new Set(ids)]);
    return new Map(users.map((u) => [u.id, toUserSummary(u)]));
  }

  /** Creates a user; a taken email → 409. */
  async create(values: { email: string; name: string; password: string }): Promise<UserEntity> {
    if (await this.users.findByEmail(values.email))
      throw AppException.conflict('A user with this email already exists');
    return this.users.create({
      email: values.email,
      name: values.name,
      passwordHash: await hashPassword(values.password, this.config.auth.passwordHashCost),
    });
  }

  /** Finds the user with this email or creates one (password required then). */
  async findOrCreate(values: { email: string; name: string; password?: string }): Promise<UserEntity> {
    const existing = await this.users.findByEmail(values.email);
    if (existing) return existing;
    if (!values.password) throw AppException.field('password', 'is required to create a new user');
    return this.create({ email: values.email, name: values.name, password: values.password });
  }

  /** The caller changes their own password; a wrong current password is a 400 on `currentPassword`. */
  async changePassword(userId: string, currentPassword: string, newPassword: string): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw AppException.notFound('User');
    if (!(await verifyPassword(currentPassword, user.passwordHash)))
      throw AppException.field('currentPassword', 'is not your current password');
    if (currentPassword === newPassword)
      throw AppException.field('newPassword', 'must differ from the current password');
    await this.users.setPassword(user.id, await hashPassword(newPassword, this.config.auth.passwordHashCost));
  }

  /**
   * After a successful login: a hash made with a lower cost than today's (PASSWORD_HASH_COST was raised
   * 16384 → 32768 in session 29) is replaced by one of today's cost, unless the password changed meanwhile.
   */
  async upgradePasswordHash(user: UserEntity, password: string): Promise<boolean> {
    const cost = this.config.auth.passwordHashCost;
    if (!needsRehash(user.passwordHash, cost)) return false;
    return this.users.replacePasswordHash(user.id, user.passwordHash, await hashPassword(password, cost));
  }

  /** Sets a password without knowing the old one (CLI `user:password`, admin reset). */
  async setPassword(userId: string, password: string): Promise<void> {
    await this.users.setPassword(userId, await hashPassword(password, this.config.auth.passwordHashCost));
  }

  /** Replaces the password with a generated one and returns it (shown once, never stored in clear). */
  async resetPassword(userId: string): Promise<string> {
    const password = randomBytes(12).toString('base64url');
    await this.setPassword(userId, password);
    return password;
  }
}
