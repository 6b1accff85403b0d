import type { BenchContext, Outcome } from '../support/context';
import { health } from './s1-health';
import { bookingCreate } from './s3-booking-create';
import { bookingsList } from './s4-bookings-list';
import { propertyRead } from './s2-property-read';
import { propertyReadThroughPgBouncer } from './s2p-property-read-pgbouncer';
import { propertyReadTraced } from './s2t-property-read-traced';
import { webhookFanout } from './s5-webhook-fanout';
import { webhookFanoutRabbitmq } from './s5r-webhook-fanout-rabbitmq';
import { webhookFanoutTraced } from './s5t-webhook-fanout-traced';
import { deliveryLatency } from './s6-delivery-latency';
import { memory } from './s7-memory';
import { jobCreate } from './s8-job-create';
import { bigTables } from './s9-big-tables';
import { orderedWebhooks } from './s10-ordered-webhooks';
import { invalidKeyFlood } from './s11-invalid-key-flood';
import { receiverAuth } from './s12-receiver-auth';

/**
 * Every scenario of `npm run bench`, in the order they run. A scenario not built yet stays here
 * as `pending` (it shows in the table); adding one is a file in this folder exporting
 * `(ctx: BenchContext) => Promise<Outcome>`, named here as `run`.
 */
export interface Scenario {
  id: string;
  title: string;
  goal: string;
  run?: (ctx: BenchContext) => Promise<Outcome>;
  /** Why it does not run yet. */
  pending?: string;
}

export const SCENARIOS: Scenario[] = [
  { id: 'S1', title: 'GET /v1/health vs bare Express (SELECT 1 + PING)', goal: '≥ 0.85x', run: health },
  {
    id: 'S2',
    title: 'GET /v1/properties/{id} vs bare Express + pg (same key lookup and rate-limit script, same read, prepared)',
    goal: '≥ 0.85x',
    run: propertyRead,
  },
  {
    id: 'S2P',
    title:
      'S2 through PgBouncer in transaction mode (DATABASE_POOLER=transaction) vs S2 direct (DATABASE_POOLER=none); beside it, direct with transaction vs none',
    goal: 'recorded (the pooler’s cost)',
    run: propertyReadThroughPgBouncer,
  },
  {
    id: 'S2T',
    title:
      'S2 with tracing on (100% sampled, OTLP to a local sink; and 0.1 sampled, parentbased_traceidratio) vs S2 with tracing off (no OTEL_* variable: nothing loaded)',
    goal: '≥ 0.8x; 0.1 sampled ≥ 0.95x',
    run: propertyReadTraced,
  },
  {
    id: 'S3',
    title: 'POST /v1/bookings at 10 connections vs bare Express + pg running the same statements (pgbench beside)',
    goal: '≥ 0.6x of bare Express + pg',
    run: bookingCreate,
  },
  {
    id: 'S4',
    title: 'bookings list page (middle, deep cursor) at 10,000 and 1,000,000 bookings; OFFSET beside',
    goal: 'each within 1.25x',
    run: bookingsList,
  },
  {
    id: 'S5',
    title: 'webhook fan-out: 1,000 events × 10 subscriptions, one worker, vs min(BullMQ no-op, undici POSTs)',
    goal: '≥ 0.3x and ≥ 2,000 deliveries/s, each once',
    run: webhookFanout,
  },
  {
    id: 'S5T',
    title:
      'S5 with the worker tracing every step (100% sampled, OTLP to a local sink; and 0.1 sampled, parentbased_traceidratio) vs the same worker with tracing off',
    goal: '≥ 0.8x; 0.1 sampled ≥ 0.95x',
    run: webhookFanoutTraced,
  },
  {
    id: 'S5R',
    title: 'S5 with ten RabbitMQ subscriptions (each publish confirmed) beside ten HTTP ones on the same events, one worker',
    goal: 'RabbitMQ ≥ 1.0x the HTTP rate of the same run, each once',
    run: webhookFanoutRabbitmq,
  },
  {
    id: 'S6',
    title: 'commit → first delivery attempt at 50 events/s, and at half the API’s max create rate measured in the same run',
    goal: '50/s: p95 < 20 ms, p99 < 50 ms; half max: p95 < 100 ms, last fifth’s p50 ≤ 1.5x the first’s',
    run: deliveryLatency,
  },
  {
    id: 'S8',
    title: 'POST /v1/jobRequests with three checklists of 20 tasks, median at 10 connections',
    goal: 'within 3x of S3',
    run: jobCreate,
  },
  {
    id: 'S9',
    title: 'events feed and delivery log pages at 10,000,000 rows (BENCH_S9_ROWS) vs 10,000; S2 during retention',
    goal: 'pages within 1.25x; S2 ≥ 0.9x',
    run: bigTables,
  },
  {
    id: 'S10',
    title:
      'ordered webhooks: one ordered subscription, receiver at once and at 20 ms; S5 with one ordered among ten vs S5 without (unordered rate)',
    goal: '≥ 500/s; 1,000 in ≤ 23 s (≤ 3 ms each beyond the receiver); mixed ≥ 0.9x',
    run: orderedWebhooks,
  },
  {
    id: 'S12',
    title:
      'receivers behind authentication: S5 with one headers and one oauth2 subscription among ten vs S5 without (all ten, deliveries/s)',
    goal: '≥ 0.9x, each once, one token request',
    run: receiverAuth,
  },
  {
    id: 'S11',
    title: 'invalid-key flood: 100 connections with invalid keys from the address of a valid client',
    goal: '≥ 2,500 refusals/s; the valid client’s p95 < 60 ms',
    run: invalidKeyFlood,
  },
  // Last: it stops the shared API to measure a fresh one.
  {
    id: 'S7',
    title: 'RSS of API and worker, idle and after a soak at 70% of S2',
    goal: 'API < 120 MB idle and < 150 MB after the soak, worker < 150 MB, growth < 10%, loop p99 < 20 ms',
    run: memory,
  },
];
