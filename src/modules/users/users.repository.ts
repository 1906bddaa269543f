import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { isUuid } from 'src/core/http/uuid';
import { UserEntity } from './user.entity';

/** Users are global (a person can belong to several workspaces); workspace access goes through memberships. */
@Injectable()
export class UsersRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(UserEntity);
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.repo.findOneBy({ email: email.toLowerCase() });
  }

  findById(id: string): Promise<UserEntity | null> {
    return isUuid(id) ? this.repo.findOneBy({ id }) : Promise.resolve(null);
  }

  findByIds(ids: readonly string[]): Promise<UserEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.repo.createQueryBuilder('u').where('u.id = ANY(:ids)', { ids }).getMany();
  }

  create(values: { email: string; name: string; passwordHash: string }): Promise<UserEntity> {
    return this.repo.save(this.repo.create({ ...values, email: values.email.toLowerCase() }));
  }

  async setPassword(id: string, passwordHash: string): Promise<void> {
    await this.repo.update({ id }, { passwordHash });
  }

  /** Replaces the hash only while it is still `current` (a password changed meanwhile is left alone). */
  async replacePasswordHash(id: string, current: string, passwordHash: string): Promise<boolean> {
    const result = await this.repo.update({ id, passwordHash: current }, { passwordHash });
    return (result.affected ?? 0) > 0;
  }
}
