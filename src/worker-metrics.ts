import { getQueueToken } from '@nestjs/bullmq';
import { INestApplicationContext, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { createServer, Server } from 'node:http';
import { DataSource } from 'typeorm';
import { AppConfig } from './config/config';
import { CALENDAR_SYNC_QUEUE } from './modules/calendar-feeds/calendar-sync-queue.service';
import { EventsService } from './modules/events/events.service';
import { REMINDER_DUE_QUEUE } from './modules/reminders/reminder-queue.service';
import { WEBHOOK_DELIVERY_QUEUE, WEBHOOK_DELIVERY_QUEUES, WEBHOOK_DISPATCH_QUEUE } from './modules/webhooks/webhook-queue.service';
import { untilAborted } from './platform/async/until-aborted';
import { Metrics, serveMetrics } from './platform/metrics/metrics';

const QUEUES = [WEBHOOK_DISPATCH_QUEUE, WEBHOOK_DELIVERY_QUEUE, REMINDER_DUE_QUEUE, CALENDAR_SYNC_QUEUE];
const STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** A scrape never waits longer than this on Redis or PostgreSQL: what did not answer keeps its last value. */
const READ_DEADLINE_MS = 1_000;

/**
 * The worker's GET /metrics on WORKER_METRICS_PORT: a plain node:http server (the worker runs no Nest
 * HTTP), behind the METRICS_TOKEN bearer when set. Queue depths and the feed and dispatch delays are
 * read at scrape time, each under a deadline.
 */
export async function startWorkerMetricsServer(app: INestApplicationContext, config: AppConfig, port: number): Promise<Server> {
  const metrics = app.get(Metrics);
  const events = app.get(EventsService);
  const dataSource = app.get(DataSource);
  const queues = QUEUES.flatMap((name) => {
    try {
      return [[name, app.get<Queue>(getQueueToken(name), { strict: false })] as const];
    } catch {
      return []; // a queue this worker does not register
    }
  });
  // The delivery queues past the first (WEBHOOK_DELIVERY_QUEUES > 1), under their own names.
  try {
    for (const queue of app.get<Queue[]>(WEBHOOK_DELIVERY_QUEUES, { strict: false }).slice(1)) queues.push([queue.name, queue] as const);
  } catch {
    // no webhook queues in this process
  }
  const logger = new Logger('WorkerMetrics');

  const refresh = async () => {
    const signal = AbortSignal.timeout(READ_DEADLINE_MS);
    const reads = [
      ...queues.map(async ([name, queue]) => {
        const counts = await untilAborted(queue.getJobCounts(...STATES), signal);
        for (const state of STATES) metrics.queueJobs.set({ queue: name, state }, counts[state] ?? 0);
      }),
      untilAborted(events.oldestUndispatchedAgeSeconds(), signal).then((age) => metrics.eventsUndispatchedOldest.set(age)),
      untilAborted(
        dataSource.query(
          `SELECT coalesce(extract(epoch FROM now() - min(xact_start)), 0)::float8 AS age
             FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL`,
        ),
        signal,
      ).then((rows: Array<{ age: number }>) => metrics.eventFeedDelay.set(Number(rows[0]?.age ?? 0))),
    ];
    for (const read of await Promise.allSettled(reads)) {
      if (read.status === 'rejected') logger.warn(`metrics read failed: ${(read.reason as Error).message}`);
    }
  };

  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    serveMetrics(metrics, config.ops.metricsToken, req, res, refresh).catch((error: Error) => res.writeHead(500).end(`${error.message}\n`));
  });
  await new Promise<void>((resolve) => server.listen(port, resolve));
  return server;
}
