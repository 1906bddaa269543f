import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG } from 'src/core/config/config.constants';
import type { AppConfig } from 'src/core/config/app-config';
import { TransactionHost } from 'src/core/database/transaction-host';
import { getTenantContext, runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { PresenceService } from 'src/modules/queues';
import { UsersService } from 'src/modules/users';
import { WorkspacesService } from 'src/modules/workspaces';

/**
 * First start: when no workspace exists, create one and its admin from BOOTSTRAP_* (DESIGN §3.1).
 * Several instances starting together bootstrap once (advisory lock). A generated password is
 * written to DATA_DIR/initial-admin-password (mode 600), never logged.
 */
@Injectable()
export class BootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tx: TransactionHost,
    private readonly users: UsersService,
    private readonly workspaces: WorkspacesService,
    private readonly presence: PresenceService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'cli') return;
    await this.bootstrap();
  }

  async bootstrap(): Promise<{ workspaceId: string; email: string } | null> {
    const { adminEmail, adminPassword, workspaceName, plan } = this.config.bootstrap;
    const result = await this.tx.run(async () => {
      await this.workspaces.lockBootstrap();
      if (await this.workspaces.existsAny()) return null;
      const password = adminPassword ?? randomBytes(12).toString('base64url');
      const existing = await this.users.findByEmail(adminEmail);
      const user = existing ?? (await this.users.create({ email: adminEmail, name: 'Admin', password }));
      const workspace = await this.workspaces.create({ name: workspaceName, plan, ownerId: user.id });
      return {
        workspaceId: workspace.id,
        userId: user.id,
        email: adminEmail,
        generatedPassword: adminPassword || existing ? null : password,
      };
    });
    if (!result) return null;
    // A fresh install has one person: the admin receives the first conversations without a presence
    // call (docs/queues.md). They go AWAY/OFFLINE like anyone else; nobody else is made ONLINE.
    await runAsWorkspace(result.workspaceId, () => this.presence.set(getTenantContext(), { status: 'ONLINE' }), {
      type: 'user',
      userId: result.userId,
      tokenId: null,
      role: 'ADMIN',
    });
    if (result.generatedPassword) {
      mkdirSync(this.config.dataDir, { recursive: true });
      const file = join(this.config.dataDir, 'initial-admin-password');
      writeFileSync(file, `${result.generatedPassword}\n`, { mode: 0o600 });
      this.logger.warn(
        `Created workspace "${workspaceName}" and admin ${result.email}; the generated password is in ${file}`,
      );
    } else {
      this.logger.log(`Created workspace "${workspaceName}" and admin ${result.email}`);
    }
    return { workspaceId: result.workspaceId, email: result.email };
  }
}
