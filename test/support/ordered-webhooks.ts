import { EventsService } from '../../src/modules/events/events.service';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { ApiClient, TestApp } from './app';
import { feedEvents, publishUnchecked } from './events';
import { sleep } from './wait';
import { ReceivedRequest, Reply, WebhookReceiver } from './webhook-receiver';

/**
 * Ordered endpoints (issue 31) as the RECEIVER sees them: every request it got, stamped with a counter
 * shared by arrivals and answers (one process, so the stamps order them exactly), checked against the
 * order GET /v1/events lists the events in. Never the database's view of what happened.
 */

/** One request as the receiver handled it: the event (`results[0].n`), the attempt, when it arrived and was answered. */
export interface Arrival {
  n: number;
  deliveryId: string;
  retryCount: number;
  arrived: number;
  answered?: number;
  status?: number;
}

/** What the script answers for one request (`attempt` = how many requests of this event came before it). */
export type Script = (n: number, attempt: number) => Reply;

export interface ArrivalLog {
  arrivals: Arrival[];
  /** The most requests the receiver held unanswered at once. */
  maxInFlight(): number;
  /** Requests of event `n`, in arrival order. */
  of(n: number): Arrival[];
}

/** Answers per `script` (a delay is waited here, so `answered` is when the answer left) and logs each request. */
export function logArrivals(r: WebhookReceiver, script: Script = () => ({ status: 200 })): ArrivalLog {
  const arrivals: Arrival[] = [];
  let clock = 0;
  let inFlight = 0;
  let most = 0;
  r.respondWith(async (request: ReceivedRequest) => {
    const n = numberOf(request);
    const arrival: Arrival = {
      n,
      deliveryId: String(request.headers['webhook-id']),
      retryCount: Number(request.headers['webhook-retry-count']),
      arrived: ++clock,
    };
    const attempt = arrivals.filter((a) => a.n === n).length;
    arrivals.push(arrival);
    most = Math.max(most, ++inFlight);
    const { delayMs, ...reply } = script(n, attempt);
    try {
      if (delayMs) await sleep(delayMs);
    } finally {
      inFlight--;
    }
    arrival.answered = ++clock;
    arrival.status = reply.status ?? 200;
    return reply;
  });
  return { arrivals, maxInFlight: () => most, of: (n) => arrivals.filter((a) => a.n === n) };
}

/** The event's `n` (results `[{ n }]`); -1 for a test delivery (no results). */
export function numberOf(request: ReceivedRequest): number {
  return JSON.parse(request.rawBody).results[0]?.n ?? -1;
}

/** Publishes events `from`..`from + count - 1` of `eventName`, results `[{ n }]`, each in a transaction of its own. */
export async function publishSeries(t: TestApp, accountId: string, eventName: string, count: number, from = 0): Promise<void> {
  for (let n = from; n < from + count; n++) {
    const ctx = { accountId, requestId: `req_ordered_${eventName}_${n}`, clientRequestId: `client_ordered_${n}` };
    await t.app.get(UnitOfWork).run(ctx, (tx) => publishUnchecked(t.app.get(EventsService), tx, eventName, [{ n }]));
  }
}

/** The `n` of each `eventName` event in the order GET /v1/events lists them (waiting until `count` show). */
export async function feedOrder(api: ApiClient, eventName: string, count: number): Promise<number[]> {
  const events = await feedEvents(api, { until: (all) => all.filter((e) => e.eventName === eventName).length >= count });
  return events.filter((e) => e.eventName === eventName).map((e) => e.results[0].n as number);
}

/**
 * The receiver's record against the feed's order: every request of an event arrived, and the last of
 * them was answered, before the first request of the next event in the feed arrived. Returns the
 * violations (empty when the order held), readable in a failed expectation.
 */
export function orderViolations(log: ArrivalLog, feed: number[]): string[] {
  const violations: string[] = [];
  for (let k = 0; k + 1 < feed.length; k++) {
    const before = log.of(feed[k]);
    const after = log.of(feed[k + 1]);
    if (before.length === 0 || after.length === 0) {
      violations.push(`event ${feed[before.length === 0 ? k : k + 1]} never arrived`);
      continue;
    }
    const next = after[0].arrived;
    const last = before[before.length - 1];
    if (last.arrived > next) violations.push(`event ${feed[k]} arrived again (#${last.arrived}) after event ${feed[k + 1]} (#${next})`);
    else if (last.answered === undefined || last.answered > next)
      violations.push(`event ${feed[k + 1]} arrived (#${next}) before event ${feed[k]} was answered (#${last.answered ?? 'never'})`);
  }
  return violations;
}
