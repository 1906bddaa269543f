import { DatabaseModule } from 'src/core/database/database.module';
import { ApiTokenEntity } from './api-token.entity';
import { Module } from '@nestjs/common';
import { ApiTokensController } from './api-tokens.controller';
import { ApiTokensRepository } from './api-tokens.repository';
import { ApiTokensService } from './api-tokens.service';
import { ApiTokenTouchJob } from './jobs/api-token-touch.job';

@Module({
  imports: [DatabaseModule.forEntities([ApiTokenEntity])],
  controllers: [ApiTokensController],
  providers: [ApiTokensRepository, ApiTokensService, ApiTokenTouchJob],
  exports: [ApiTokensService],
})
export class DeveloperModule {}
