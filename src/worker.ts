import './instrumentation/worker';
import 'reflect-metadata';
import { INestApplicationContext, Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppConfig, loadConfigOrExit } from './config/config';
import { startWorkerMetricsServer } from './worker-metrics';
import { WorkerModule } from './worker.module';
import { stopTracing } from './instrumentation/preload';
import type { Server } from 'node:http';
import { Worker as Thread } from 'node:worker_threads';

/**
 * How long a stopping worker may take: its attempts in flight finish and record (up to
 * WEBHOOK_TIMEOUT_MS and 2 s), queues close (never waiting on a Redis that is down).
 * Past it the process exits anyway; what was left undone is the sweep's.
 */
function shutdownTimeoutMs(config: AppConfig): number {
  return config.webhook.timeoutMs + 15_000;
}

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { bufferLogs: true });
  app.useLogger(app.get(Logger));
  const logger = new NestLogger('Worker');
  const port = config.ops.workerMetricsPort;
  const metricsServer = port ? await startWorkerMetricsServer(app, config, port) : undefined;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void shutdown(app, logger, signal, shutdownTimeoutMs(config), metricsServer));
  }
  logger.log({ metricsPort: port }, 'worker started');
}

async function shutdown(
  app: INestApplicationContext,
  logger: NestLogger,
  signal: string,
  timeoutMs: number,
  metricsServer?: Server,
): Promise<void> {
  logger.log({ signal }, 'worker stopping');
  metricsServer?.close();
  metricsServer?.closeAllConnections();
  const deadline = setTimeout(() => {
    logger.error({ signal, timeoutMs }, 'worker shutdown took too long: exiting with work unfinished');
    process.exit(1);
  }, timeoutMs);
  killIfStuck(timeoutMs + STUCK_GRACE_MS);
  try {
    await app.close();
  } catch (error) {
    logger.error({ signal, error: (error as Error).message }, 'worker shutdown failed');
  }
  clearTimeout(deadline);
  await stopTracing();
  process.exit(0);
}

/** How long past its deadline a shutdown whose own deadline could not fire is left before SIGKILL. */
const STUCK_GRACE_MS = 5_000;

/**
 * The backstop of the shutdown deadline: a thread of its own SIGKILLs the process after `ms`. The
 * deadline above is a timer of the main thread, which a loop there that never yields (a promise loop
 * included) keeps from ever firing; this thread's timer is not held up by it, nor does it keep the
 * process alive. It writes its line to stderr directly: the main thread would never flush it.
 */
function killIfStuck(ms: number): void {
  const watchdog = `
    const { writeSync } = require('node:fs');
    setTimeout(() => {
      writeSync(2, 'worker shutdown stuck past its deadline (the main thread never yielded): SIGKILL\\n');
      process.kill(process.pid, 'SIGKILL');
    }, ${ms});`;
  new Thread(watchdog, { eval: true }).unref();
}

bootstrap().catch((error: Error) => {
  process.stderr.write(`Worker failed to start: ${error.message}\n`);
  process.exit(1);
});
