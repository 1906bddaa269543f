import { Module } from '@nestjs/common';
import { QueuesRepository } from './queues.repository';
import { QueuesService } from './queues.service';

@Module({ providers: [QueuesRepository, QueuesService], exports: [QueuesService] })
export class QueuesModule {}
