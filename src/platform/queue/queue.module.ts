import { Global, Module } from '@nestjs/common';
import { QueueShutdown } from './queue-shutdown';
import { QueueWorkers } from './queue-worker';

/** The process's QueueShutdown and QueueWorkers, for every module that opens a queue or a worker. */
@Global()
@Module({ providers: [QueueShutdown, QueueWorkers], exports: [QueueShutdown, QueueWorkers] })
export class QueueModule {}
