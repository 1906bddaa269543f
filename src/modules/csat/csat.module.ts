import { Module } from '@nestjs/common';
import { DatabaseModule } from 'src/core/database/database.module';
import { CsatController } from './csat.controller';
import { CsatResponseEntity } from './csat-response.entity';
import { CsatResponsesRepository } from './csat-responses.repository';
import { CsatService } from './csat.service';

/** Customer-satisfaction ratings (`POST /csat`); analytics and the `csat` report read its table. */
@Module({
  imports: [DatabaseModule.forEntities([CsatResponseEntity])],
  controllers: [CsatController],
  providers: [CsatResponsesRepository, CsatService],
  exports: [CsatService],
})
export class CsatModule {}
