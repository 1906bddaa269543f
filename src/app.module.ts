import { type DynamicModule, Module, type ModuleMetadata } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { ScheduleModule } from '@nestjs/schedule';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { Options as PinoHttpOptions } from 'pino-http';
import { AdminChannel } from 'src/admin-channel';
import { AuthGuard } from 'src/core/auth/auth.guard';
import { jwtModuleOptions } from 'src/core/auth/jwt-options';
import { PermissionGuard } from 'src/core/auth/permission.guard';
import { ScopesGuard } from 'src/core/auth/scopes.guard';
import { WorkspaceGuard } from 'src/core/auth/workspace.guard';
import type { AppConfig } from 'src/core/config/app-config';
import { ConfigModule } from 'src/core/config/config.module';
import { CoreModule } from 'src/core/core.module';
import { DatabaseModule } from 'src/core/database/database.module';
import { HealthModule } from 'src/core/health/health.module';
import { redactUrl, redactedError, redactedRequest, redactedResponse } from 'src/core/http/log-redaction';
import { MetricsModule } from 'src/core/metrics/metrics.module';
import { requestIdOf } from 'src/core/http/request-id';
import { QueueModule } from 'src/core/queue/queue.module';
import { TenantContextInterceptor } from 'src/core/tenancy/tenant-context.interceptor';
import { AiAgentsModule } from 'src/modules/ai-agents';
import { AuthModule } from 'src/modules/auth';
import { AutomationsModule } from 'src/modules/automations';
import { ChannelsModule } from 'src/modules/channels';
import { InboundModule } from 'src/modules/inbound';
import { InboxModule } from 'src/modules/inbox';
import { CatalogueModule } from 'src/modules/catalogue';
import { ContactsModule } from 'src/modules/contacts';
import { DeveloperModule } from 'src/modules/developer';
import { PermissionsModule } from 'src/modules/permissions';
import { QueuesModule } from 'src/modules/queues';
import { SlaModule } from 'src/modules/sla';
import { TicketsModule } from 'src/modules/tickets';
import { CsatModule } from 'src/modules/csat';
import { AnalyticsModule } from 'src/modules/analytics';
import { UsersModule } from 'src/modules/users';
import { WorkspacesModule } from 'src/modules/workspaces';

/** The domain modules; a new module is added here. */
const DOMAIN_MODULES: NonNullable<ModuleMetadata['imports']> = [
  UsersModule,
  WorkspacesModule,
  AuthModule,
  DeveloperModule,
  PermissionsModule,
  QueuesModule,
  CatalogueModule,
  ContactsModule,
  ChannelsModule,
  InboxModule,
  InboundModule,
  SlaModule,
  AiAgentsModule,
  TicketsModule,
  CsatModule,
  AnalyticsModule,
  AutomationsModule,
];

@Module({})
export class AppModule {
  /** The whole service for one validated configuration; APP_ROLE decides whether timers run here. */
  static register(config: AppConfig, options: { logStream?: DestinationStream } = {}): DynamicModule {
    const runsTimers = config.role === 'all' || config.role === 'worker';
    const pinoOptions: PinoHttpOptions = {
      level: config.logLevel,
      genReqId: (req) => requestIdOf(req),
      autoLogging: config.env !== 'test',
      // Credentials never reach the log: every receiver's signature/secret header, hub.* query
      // parameters, authorization, cookies, tokens; SQL parameter values (issue 9).
      serializers: { req: redactedRequest, res: redactedResponse, err: redactedError },
      // "GET /conversations 200 in 12ms" instead of "request completed".
      customSuccessMessage: (req, res, responseTime) =>
        `${req.method} ${redactUrl(req.url)} ${res.statusCode} in ${Math.round(responseTime)}ms`,
      customErrorMessage: (req, res, error) =>
        `${req.method} ${redactUrl(req.url)} ${res.statusCode}: ${error.message}`,
      // Pretty lines in a terminal or with LOG_FORMAT=pretty (not with a capture stream).
      ...(config.logFormat === 'pretty' && !options.logStream
        ? {
            transport: {
              target: 'pino-pretty',
              options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,req,res' },
            },
          }
        : {}),
    };
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({
          // Default destination (stdout), or the test's capture stream.
          pinoHttp: options.logStream ? [pinoOptions, options.logStream] : pinoOptions,
        }),
        JwtModule.register(jwtModuleOptions(config.auth.jwtSecret)),
        CoreModule,
        DatabaseModule,
        QueueModule.forRoot(config),
        HealthModule,
        MetricsModule,
        ...(runsTimers ? [ScheduleModule.forRoot()] : []),
        ...DOMAIN_MODULES,
      ],
      providers: [
        // Global guard chain, in this order: who → scopes → which workspace → may they.
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_GUARD, useClass: ScopesGuard },
        { provide: APP_GUARD, useClass: WorkspaceGuard },
        { provide: APP_GUARD, useClass: PermissionGuard },
        { provide: APP_INTERCEPTOR, useClass: TenantContextInterceptor },
        // `npm run cli` reaches a running embedded service through DATA_DIR/admin.sock.
        AdminChannel,
      ],
    };
  }
}
