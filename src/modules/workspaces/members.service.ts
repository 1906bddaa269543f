import { Injectable } from '@nestjs/common';
import type { Role } from 'src/core/auth/roles';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import type { CursorPaginationQuery, Page } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { QueuesService } from 'src/modules/queues';
import { UsersService, type UserSummary } from 'src/modules/users';
import type { AddMemberDto, MemberResponse, ResetPasswordResponse, UpdateMemberDto } from './dto/member.dto';
import type { MembershipEntity } from './membership.entity';
import { MembersRepository } from './members.repository';
import { WorkspacesService } from './workspaces.service';

function toMemberResponse(m: MembershipEntity, user: UserSummary | undefined): MemberResponse {
  return {
    userId: m.userId,
    email: user?.email ?? '',
    name: user?.name ?? '',
    role: m.role,
    createdAt: m.createdAt.toISOString(),
  };
}

@Injectable()
export class MembersService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly members: MembersRepository,
    private readonly users: UsersService,
    private readonly queues: QueuesService,
    private readonly workspaces: WorkspacesService,
  ) {}

  async list(_ctx: TenantContext, query: CursorPaginationQuery): Promise<Page<MemberResponse>> {
    const page = await this.members.findPage(query);
    const users = await this.users.summaries(page.data.map((m) => m.userId));
    return { data: page.data.map((m) => toMemberResponse(m, users.get(m.userId))), nextCursor: page.nextCursor };
  }

  /** Adds an existing user by email, or creates one; already a member → 409. Joins the default queue. */
  add(_ctx: TenantContext, dto: AddMemberDto): Promise<MemberResponse> {
    return this.addMember(dto);
  }

  /** Adds a user to the current workspace (also the CLI's `user:add`). */
  addMember(dto: { email: string; name: string; role: Role; password?: string }): Promise<MemberResponse> {
    return this.tx.run(async () => {
      const user = await this.users.findOrCreate({ email: dto.email, name: dto.name, password: dto.password });
      if (await this.members.findByUserId(user.id))
        throw AppException.conflict('This user is already a member of the workspace');
      const membership = await this.members.add(user.id, dto.role);
      await this.queues.addToDefaultQueue(user.id);
      return toMemberResponse(membership, user);
    });
  }

  update(_ctx: TenantContext, userId: string, dto: UpdateMemberDto): Promise<MemberResponse> {
    return this.tx.run(async () => {
      const membership = await this.getMembership(userId);
      if (membership.role === 'ADMIN' && dto.role !== 'ADMIN') await this.assertNotLastAdmin();
      const updated = await this.members.updateById(membership.id, { role: dto.role });
      const users = await this.users.summaries([userId]);
      return toMemberResponse(updated, users.get(userId));
    });
  }

  remove(_ctx: TenantContext, userId: string): Promise<void> {
    return this.tx.run(async () => {
      const membership = await this.getMembership(userId);
      if (membership.role === 'ADMIN') await this.assertNotLastAdmin();
      await this.members.deleteById(membership.id);
    });
  }

  /**
   * Admin reset: a generated password for a member, returned once. Users are global, so only a
   * member of this workspace alone can be reset here (else an admin of one workspace could take
   * over an account used in another); the others change it themselves or an operator uses the CLI.
   */
  resetPassword(_ctx: TenantContext, userId: string): Promise<ResetPasswordResponse> {
    return this.tx.run(async () => {
      await this.getMembership(userId);
      const workspaces = await this.workspaces.listForUser(userId);
      if (workspaces.length > 1)
        throw AppException.conflict(
          'This user also belongs to other workspaces; they can change their password with PUT /auth/password, or an operator can run `cli user:password`',
        );
      const user = await this.users.findById(userId);
      if (!user) throw AppException.notFound('Member');
      const temporaryPassword = await this.users.resetPassword(userId);
      return { userId, email: user.email, temporaryPassword };
    });
  }

  private async getMembership(userId: string): Promise<MembershipEntity> {
    const membership = await this.members.findByUserId(userId);
    if (!membership) throw AppException.notFound('Member');
    return membership;
  }

  private async assertNotLastAdmin(): Promise<void> {
    await this.members.lockAdmins();
    if ((await this.members.countAdmins()) <= 1) throw AppException.conflict('A workspace needs at least one ADMIN');
  }
}
