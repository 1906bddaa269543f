import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type Type,
  type Abstract,
} from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { UsageError } from 'src/cli-commands';
import { adminSql, executeCommand } from 'src/cli-executor';
import { type AdminRequest, type AdminResponse, AdminSocketServer, adminSocketPath } from 'src/core/admin/admin-socket';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { DatabaseRuntime } from 'src/core/database/database-runtime';

/**
 * The running embedded service's admin socket (DATA_DIR/admin.sock, mode 0600): `npm run cli`
 * sends its parsed command here and the service runs it in this process, on its own connection
 * pool — the embedded database never has a second client (issue 9 item 8). Only the process that
 * owns the embedded database opens it; on PostgreSQL the CLI connects to DATABASE_URL itself.
 */
@Injectable()
export class AdminChannel implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('AdminChannel');
  private server: AdminSocketServer | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runtime: DatabaseRuntime,
    private readonly moduleRef: ModuleRef,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'cli' || !this.runtime.embeddedAddress) return;
    const path = adminSocketPath(this.config.dataDir);
    try {
      this.server = await AdminSocketServer.listen(path, (request) => this.handle(request));
    } catch (error) {
      // The service still works; only `npm run cli` cannot reach it (it says so).
      this.logger.error(`admin socket not available, npm run cli cannot reach this service: ${String(error)}`);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.close();
    this.server = null;
  }

  private async handle(request: AdminRequest): Promise<AdminResponse> {
    try {
      if (request.op === 'sql') return { ok: true, result: await adminSql(this.runtime, request.sql, request.params) };
      if (request.op !== 'cli') throw new Error('unknown admin request');
      const result = await executeCommand(
        {
          get: <T>(type: Type<T> | Abstract<T>) => this.moduleRef.get(type, { strict: false }),
          httpBase: () => this.httpBase(),
        },
        { command: request.command, args: request.args },
      );
      return { ok: true, result };
    } catch (error) {
      if (error instanceof UsageError)
        return { ok: false, error: { kind: 'usage', message: error.message, command: error.command } };
      return { ok: false, error: { kind: 'error', message: error instanceof Error ? error.message : String(error) } };
    }
  }

  private httpBase(): string | null {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as { address?: () => AddressInfo | string | null };
    const address = server?.address?.();
    return address && typeof address === 'object' ? `http://127.0.0.1:${address.port}` : null;
  }
}
