import { Global, Module } from '@nestjs/common';
import { AUTH_LOOKUP } from 'src/core/auth/principal';
import { DeveloperModule } from 'src/modules/developer';
import { QueuesModule } from 'src/modules/queues';
import { UsersModule } from 'src/modules/users';
import { WorkspacesModule } from 'src/modules/workspaces';
import { AuthLookupRepository } from './auth-lookup.repository';
import { AuthLookupService } from './auth-lookup.service';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { BootstrapService } from './bootstrap.service';

/** Global so the core guards can inject the AUTH_LOOKUP port it implements. */
@Global()
@Module({
  imports: [UsersModule, WorkspacesModule, DeveloperModule, QueuesModule],
  controllers: [AuthController],
  providers: [
    AuthService,
    AuthLookupRepository,
    AuthLookupService,
    BootstrapService,
    { provide: AUTH_LOOKUP, useExisting: AuthLookupService },
  ],
  exports: [AUTH_LOOKUP, BootstrapService],
})
export class AuthModule {}
