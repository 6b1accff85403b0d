import { DynamicModule, Global, Module } from '@nestjs/common';
import { Metrics, MetricsProcess } from './metrics';

/** One Metrics per process, injectable everywhere (recording is cheap; exposing is configured). */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(processName: MetricsProcess): DynamicModule {
    return { module: MetricsModule, providers: [{ provide: Metrics, useValue: new Metrics(processName) }], exports: [Metrics] };
  }
}
