import { Module } from '@nestjs/common';
import { QueuesModule } from 'src/modules/queues/queues.module';
import { UsersModule } from 'src/modules/users/users.module';
import { MembersController } from './members.controller';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

@Module({
  imports: [QueuesModule, UsersModule],
  controllers: [WorkspacesController, MembersController],
  providers: [WorkspacesRepository, MembersRepository, WorkspacesService, MembersService],
  exports: [WorkspacesService, MembersService],
})
export class WorkspacesModule {}
