import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type MetricsProcess = 'api' | 'worker' | 'cli';

/** What a recorded webhook attempt reports to the metrics (webhook delivery service). */
export interface AttemptObservation {
  /** success, http_error, timeout, network_error, url_rule, disabled or lost. */
  result: string;
  durationMs: number | null;
  /** The delivery's state after the attempt. */
  outcome: 'delivered' | 'pending' | 'failed_permanent';
  autoDisabled: boolean;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The process's Prometheus metrics (prom-client), one registry per process. Every metric exists in
 * every process so code that records one needs no check, but each process exposes only its own:
 * the API its requests and rate limits, the worker its queues, deliveries and reminders.
 * Scraped at /metrics (docs/operations.md, "Metrics").
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  readonly rateLimitRejections: Counter<'scope'>;
  readonly queueJobs: Gauge<'queue' | 'state'>;
  readonly queueJobDuration: Histogram<'queue' | 'result'>;
  readonly webhookDeliveries: Counter<'outcome'>;
  readonly webhookAttemptDuration: Histogram<'result'>;
  readonly webhookAutoDisables: Counter;
  readonly remindersFired: Counter;
  readonly eventFeedDelay: Gauge;
  readonly eventsUndispatchedOldest: Gauge;
  readonly redisCircuitOpen: Gauge;
  readonly redisGivenUp: Counter<'operation'>;
  readonly queueWatchdogRecoveries: Counter<'queue'>;

  constructor(processName: MetricsProcess) {
    const api = processName === 'api' ? [this.registry] : [];
    const worker = processName === 'worker' ? [this.registry] : [];
    this.httpRequestDuration = new Histogram({
      name: 'pop_http_request_duration_seconds',
      help: 'API requests by method, route template and status, from the first middleware to the last byte',
      labelNames: ['method', 'route', 'status'],
      buckets: SECONDS,
      registers: api,
    });
    this.rateLimitRejections = new Counter({
      name: 'pop_rate_limit_rejections_total',
      help: 'Requests refused with 429: scope key (the key limits) or address (failed authentications)',
      labelNames: ['scope'],
      registers: api,
    });
    this.queueJobs = new Gauge({
      name: 'pop_queue_jobs',
      help: 'Jobs in each BullMQ queue by state, read at scrape time',
      labelNames: ['queue', 'state'],
      registers: worker,
    });
    this.queueJobDuration = new Histogram({
      name: 'pop_queue_job_duration_seconds',
      help: 'Run time of the jobs this worker processed, by queue and result',
      labelNames: ['queue', 'result'],
      buckets: SECONDS,
      registers: worker,
    });
    this.webhookDeliveries = new Counter({
      name: 'pop_webhook_deliveries_total',
      help: "Recorded webhook attempts by the delivery's outcome: delivered, retrying or failed_permanent",
      labelNames: ['outcome'],
      registers: worker,
    });
    this.webhookAttemptDuration = new Histogram({
      name: 'pop_webhook_attempt_duration_seconds',
      help: 'Webhook attempts by result (success, http_error, timeout, network_error, url_rule, disabled, lost)',
      labelNames: ['result'],
      buckets: SECONDS,
      registers: worker,
    });
    this.webhookAutoDisables = new Counter({
      name: 'pop_webhook_auto_disables_total',
      help: 'Subscriptions disabled after 10 consecutive permanently failed deliveries',
      registers: worker,
    });
    this.remindersFired = new Counter({
      name: 'pop_reminders_fired_total',
      help: 'Reminders fired (reminder.due written)',
      registers: worker,
    });
    this.eventFeedDelay = new Gauge({
      name: 'pop_event_feed_delay_seconds',
      help: 'Age of the oldest open write transaction: GET /v1/events shows nothing newer until it ends',
      registers: worker,
    });
    const both = [this.registry];
    this.redisCircuitOpen = new Gauge({
      name: 'pop_redis_circuit_open',
      help: '1 while Redis is taken for hung (a command timed out and no probe has heard it since): requests go on without waiting for it',
      registers: processName === 'cli' ? [] : both,
    });
    this.redisGivenUp = new Counter({
      name: 'pop_redis_given_up_total',
      help: 'Redis operations not attempted or not waited for because Redis was taken for hung (rate limits counted in memory, queue hand-overs left to the sweep)',
      labelNames: ['operation'],
      registers: processName === 'cli' ? [] : both,
    });
    this.queueWatchdogRecoveries = new Counter({
      name: 'pop_queue_watchdog_recoveries_total',
      help: 'Queue workers restarted by the watchdog: idle with work waiting for longer than their longest job',
      labelNames: ['queue'],
      registers: worker,
    });
    this.eventsUndispatchedOldest = new Gauge({
      name: 'pop_events_undispatched_oldest_seconds',
      help: 'Age of the oldest event not yet fanned out to webhook deliveries (0 when none)',
      registers: worker,
    });
    if (processName !== 'cli') collectDefaultMetrics({ register: this.registry });
  }

  observeAttempt({ result, durationMs, outcome, autoDisabled }: AttemptObservation): void {
    this.webhookAttemptDuration.observe({ result }, (durationMs ?? 0) / 1000);
    this.webhookDeliveries.inc({ outcome: outcome === 'pending' ? 'retrying' : outcome });
    if (autoDisabled) this.webhookAutoDisables.inc();
  }
}

/** Bearer check in constant time (the token is a secret). */
export function hasBearer(req: IncomingMessage, token: string): boolean {
  const given = Buffer.from(req.headers.authorization ?? '');
  const wanted = Buffer.from(`Bearer ${token}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * GET /metrics for both processes: 401 without the bearer token, else `refresh` (values read at
 * scrape time) and the registry's text.
 */
export async function serveMetrics(
  metrics: Metrics,
  token: string | null,
  req: IncomingMessage,
  res: ServerResponse,
  refresh?: () => Promise<void>,
): Promise<void> {
  if (token !== null && !hasBearer(req, token)) {
    res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('Unauthorized\n');
    return;
  }
  if (refresh) await refresh();
  const body = await metrics.registry.metrics();
  res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body);
}
