import { DatabaseModule } from 'src/core/database/database.module';
import { RolePermissionEntity } from './role-permission.entity';
import { Module } from '@nestjs/common';
import { PermissionsController } from './permissions.controller';
import { PermissionsRepository } from './permissions.repository';
import { PermissionsService } from './permissions.service';

@Module({
  imports: [DatabaseModule.forEntities([RolePermissionEntity])],
  controllers: [PermissionsController],
  providers: [PermissionsRepository, PermissionsService],
})
export class PermissionsModule {}
