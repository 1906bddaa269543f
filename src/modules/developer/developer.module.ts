import { Module } from '@nestjs/common';
import { ApiTokensController } from './api-tokens.controller';
import { ApiTokensRepository } from './api-tokens.repository';
import { ApiTokensService } from './api-tokens.service';
import { ApiTokenTouchJob } from './jobs/api-token-touch.job';

@Module({
  controllers: [ApiTokensController],
  providers: [ApiTokensRepository, ApiTokensService, ApiTokenTouchJob],
  exports: [ApiTokensService],
})
export class DeveloperModule {}
