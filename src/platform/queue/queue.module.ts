import { Global, Module } from '@nestjs/common';
import { QueueShutdown } from './queue-shutdown';

/** The process's QueueShutdown, for every module that opens a queue or a worker. */
@Global()
@Module({ providers: [QueueShutdown], exports: [QueueShutdown] })
export class QueueModule {}
