import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig, loadConfig } from '../../src/config/config';
import { appEnvironment } from './test-env';
import { WorkerModule } from '../../src/worker.module';

export interface TestWorker {
  ctx: INestApplicationContext;
  config: AppConfig;
  close(): Promise<void>;
}

/**
 * Boots the real worker process module (as src/worker.ts does, without HTTP) in the test process.
 * Give it the same REDIS_PREFIX override as the app under test so it takes that app's jobs only.
 */
export async function startWorker(overrides: Record<string, string> = {}): Promise<TestWorker> {
  const config = loadConfig(appEnvironment(overrides));
  const ctx = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { logger: false, abortOnError: false });
  await ctx.init();
  return { ctx, config, close: () => ctx.close() };
}
