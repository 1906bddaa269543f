import { DatabaseModule } from 'src/core/database/database.module';
import { UserEntity } from './user.entity';
import { Module } from '@nestjs/common';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [DatabaseModule.forEntities([UserEntity])],
  providers: [UsersRepository, UsersService],
  exports: [UsersService],
})
export class UsersModule {}
