import { Injectable } from '@nestjs/common';
import { AppException } from 'src/core/errors/app.exception';
import { hashPassword } from './password.util';
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
  constructor(private readonly users: UsersRepository) {}

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
      passwordHash: await hashPassword(values.password),
    });
  }

  /** Finds the user with this email or creates one (password required then). */
  async findOrCreate(values: { email: string; name: string; password?: string }): Promise<UserEntity> {
    const existing = await this.users.findByEmail(values.email);
    if (existing) return existing;
    if (!values.password) throw AppException.field('password', 'is required to create a new user');
    return this.create({ email: values.email, name: values.name, password: values.password });
  }
}
