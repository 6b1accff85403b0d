import './instrumentation/api';
import 'reflect-metadata';
import { INestApplication, Logger } from '@nestjs/common';
import type { Server } from 'node:http';
import { loadConfigOrExit } from './config/config';
import { createHttpApp } from './http-app';
import { stopTracing } from './instrumentation/preload';

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await createHttpApp(config);
  await app.listen(config.port);
  const logger = new Logger('Api');
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void shutdown(app, logger, signal, config.ops.shutdownTimeoutMs));
  }
  logger.log({ port: config.port }, 'api started');
}

/**
 * Graceful stop. Nest's own shutdown hooks would close the database and Redis before the HTTP
 * server, failing the requests still running, so the order is ours: stop accepting (the listening
 * socket closes; idle keep-alive connections are closed, and busy ones once their response is out),
 * let the requests in flight finish for at most SHUTDOWN_TIMEOUT_MS, cut what is left, then close
 * the app (pools, Redis, queues) and exit: 0 when nothing was cut, 1 otherwise.
 */
async function shutdown(app: INestApplication, logger: Logger, signal: string, timeoutMs: number): Promise<void> {
  logger.log({ signal, timeoutMs }, 'api stopping');
  const server = app.getHttpServer() as Server;
  const drained = new Promise<void>((resolve) => server.close(() => resolve()));
  // A keep-alive connection becomes idle when its response is out: close those as they appear.
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  let cut = false;
  const deadline = new Promise<void>((resolve) =>
    setTimeout(() => {
      cut = true;
      resolve();
    }, timeoutMs).unref(),
  );
  await Promise.race([drained, deadline]);
  clearInterval(idle);
  if (cut) {
    logger.error({ signal, timeoutMs }, 'api shutdown: requests still running at the deadline were cut');
    server.closeAllConnections();
  }
  try {
    await app.close();
  } catch (error) {
    logger.error({ signal, error: (error as Error).message }, 'api shutdown failed');
    process.exit(1);
  }
  logger.log({ signal }, 'api stopped');
  await stopTracing();
  process.exit(cut ? 1 : 0);
}

bootstrap().catch((error: Error) => {
  process.stderr.write(`API failed to start: ${error.message}\n`);
  process.exit(1);
});
