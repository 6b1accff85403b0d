import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import type { Test } from 'supertest';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { ApiClient, clientFor, createAccount, startApp, TestApp } from './app';
import { FeedEvent, feedEvents } from './events';
import { TINY_JPEG } from './images';
import { dropRedisPrefix } from './test-env';
import { sleep, waitUntil } from './wait';

/**
 * Helpers of test/e2e/concurrent-writes-*.e2e-spec.ts: requests sent at the same moment, each answer
 * checked to be one a client can act on, and the events feed checked against the answers, request by
 * request (every request carries its own x-request-id, which its events carry as apiRequestId).
 *
 * "Test the unhappy paths as carefully as the happy ones: … replays, races." Conflicting requests are
 * sent at the same moment at the same resources, round after round, and for each round:
 * - no answer is a 5xx (a deadlock, a serialization failure or a constraint violation that reaches the
 *   client is a bug), and every answer is one a client can act on: its success, or a 404 / 409 problem
 *   document with the code the rules give;
 * - the state afterwards is the one the answers imply (a DELETE answered 204 and a PATCH answered 200:
 *   the PATCH came first, so the deleted shape carries its change and the resource is gone);
 * - the events feed holds exactly the events each answer implies, request by request (none for a
 *   failed write, none lost, cascades included).
 * Where both orders are legitimate, either is accepted.
 */

/** Rounds of each race: enough for both orders to show up, few enough for a 2-core machine. */
export const ROUNDS = 12;
/** A date range that holds every booking and reminder the races create. */
export const WINDOW = 'dateFrom=2000-01-01T00:00:00Z&dateTo=2100-01-01T00:00:00Z';

/** What a file of races runs against, once its beforeAll has run. */
export interface RaceApp {
  readonly t: TestApp;
  readonly db: DataSource;
  /** A JPEG a local server of the file answers, for pictures' sourceUrl. */
  readonly imageUrl: string;
  /** A new case: a fresh account and its client. */
  open(): Promise<RaceCase>;
}

/**
 * Whose keys a file's races are sent with: an account's live key, or a test key (its sandbox; issue 35: every
 * route behaves the same in test mode). A file runs its races with both through `describe.each(KEY_KINDS)`.
 */
export type KeyKind = 'live' | 'test';
export const KEY_KINDS: KeyKind[] = ['live', 'test'];

/**
 * The app of a concurrent-writes file (rate limits out of the way, the test helpers on, a REDIS_PREFIX
 * of its own: `concurrent-writes-<name>`) and a local image server: started in beforeAll, stopped in
 * afterAll with the prefix's keys. Call it inside the file's top describe. `kind`: the key each case sends with.
 */
export function useRaceApp(name: string, kind: KeyKind = 'live'): RaceApp {
  const REDIS_PREFIX = `pop-test-${process.env.TEST_RUN_ID}-concurrent-writes-${name}-${kind}`;
  let t: TestApp | undefined;
  let images: Server | undefined;
  let imageUrl: string | undefined;

  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '200000', TEST_HELPERS_ENABLED: 'true', REDIS_PREFIX });
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(TINY_JPEG));
    images = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    imageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/img.jpg`;
  });
  afterAll(async () => {
    images?.closeAllConnections();
    await new Promise((resolve) => (images ? images.close(resolve) : resolve(undefined)));
    await t?.close();
    if (t) await dropRedisPrefix(t.config.redis, REDIS_PREFIX);
  });

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the races app starts in beforeAll');
    return value;
  };
  return {
    get t() {
      return started(t);
    },
    get db() {
      return started(t).app.get(DataSource);
    },
    get imageUrl() {
      return started(imageUrl);
    },
    open: () => RaceCase.open(started(t), kind),
  };
}

/** What a request answered. */
export interface Answer {
  label: string;
  requestId: string;
  status: number;
  body: any;
  headers: Record<string, string>;
}

/** An expected answer: a success status, or an error status with its problem code. */
export type Expected = number | [status: number, code: string];

export const NOT_FOUND: Expected = [404, 'notFound'];
export const CONFLICT: Expected = [409, 'conflict'];
export const INVALID_STATE: Expected = [409, 'invalidState'];

/**
 * Fails unless the answer is one of `expected`: never a 5xx, and an error is a problem document
 * (application/problem+json, its status, the code expected) a client can act on.
 */
export function expectAnswer(answer: Answer, ...expected: Expected[]): void {
  const describe = () => `${answer.label} answered ${answer.status} ${JSON.stringify(answer.body)}`;
  if (answer.status >= 500) throw new Error(`a 5xx: ${describe()}`);
  const match = expected.find((e) => (typeof e === 'number' ? e : e[0]) === answer.status);
  if (match === undefined) throw new Error(`expected ${JSON.stringify(expected)}: ${describe()}`);
  if (typeof match === 'number') return;
  if (!/^application\/problem\+json/.test(answer.headers['content-type'] ?? '')) throw new Error(`not a problem document: ${describe()}`);
  if (answer.body?.status !== answer.status || answer.body?.code !== match[1]) throw new Error(`expected code ${match[1]}: ${describe()}`);
}

/** Of two answers exactly one has the status: [that one, the other]. */
export function oneWinner(answers: Answer[], status: number): [Answer, Answer] {
  for (const answer of answers) if (answer.status >= 500) expectAnswer(answer, status);
  const winners = answers.filter((answer) => answer.status === status);
  if (winners.length !== 1) throw new Error(`expected exactly one ${status}: ${answers.map((a) => `${a.label} ${a.status}`).join(', ')}`);
  const [winner] = winners;
  return [winner, answers.find((answer) => answer !== winner)!];
}

/** The id an event is about: the first id field of its first result (`property.update prop_…`). */
export function eventKey(event: FeedEvent): string {
  const [resource] = event.eventName.split('.');
  const result = event.results[0] ?? {};
  const field =
    {
      property: 'propertyId',
      propertyPicture: 'pictureId',
      checklist: 'checklistId',
      booking: 'bookingId',
      reminder: 'reminderId',
      jobRequest: 'jobRequestId',
      comment: 'commentId',
    }[resource] ?? 'id';
  return `${event.eventName} ${result[field]}`;
}

const matches = (expected: string, actual: string) =>
  expected.endsWith(' *') ? actual.startsWith(expected.slice(0, -1)) && !actual.endsWith(' undefined') : expected === actual;

let caseSeq = 0;

/** The gaps between departures in a round of `together`, cycled through round after round. */
const STAGGER_MS = [0, 5, 25];

/**
 * One case of the file: a fresh account, the requests it races (tagged `race-<case>-<n>`) and, for each,
 * the events its answer says it wrote (`wrote`); `verifyFeed` then reads the account's feed and fails on
 * any event lost, any extra one (a failed request writes none), or a result that breaks `check`.
 */
export class RaceCase {
  private readonly prefix = `race-${process.pid}-${++caseSeq}-`;
  private seq = 0;
  private readonly sent: Answer[] = [];
  private readonly expected = new Map<string, string[]>();
  private readonly checks: Array<{ requestId: string; eventName: string; check: (result: any) => void }> = [];

  private constructor(
    private readonly t: TestApp,
    readonly accountId: string,
    readonly api: ApiClient,
  ) {}

  /** A fresh account's case; with `test`, its sandbox's (accountId is then the sandbox's, as its rows have it). */
  static async open(t: TestApp, kind: KeyKind = 'live'): Promise<RaceCase> {
    const account = await createAccount(t);
    if (kind === 'live') return new RaceCase(t, account.accountId, clientFor(t, account));
    const accounts = t.app.get(AccountsService);
    const key = await accounts.issueKey(account.accountId, 'platform', { test: true });
    return new RaceCase(t, await accounts.ensureSandbox(account.accountId), clientFor(t, key));
  }

  /** Sends one request with its own x-request-id; never throws on its status. */
  async send(label: string, req: Test): Promise<Answer> {
    const requestId = `${this.prefix}${++this.seq}`;
    const res = await req.set('x-request-id', requestId);
    const answer: Answer = { label, requestId, status: res.status, body: res.body, headers: res.headers as Record<string, string> };
    this.sent.push(answer);
    return answer;
  }

  /**
   * Sends the requests at (nearly) the same moment and returns their answers in the order given. The order
   * of departure rotates with `round`, and each request after the first leaves a few milliseconds after the
   * one before it (STAGGER_MS, by round: none, a little, more), so a short request also meets a long one
   * (a picture being downloaded, a job being created) in the middle of its work, not only at its start.
   */
  async together(round: number, ...requests: Array<[label: string, req: () => Test]>): Promise<Answer[]> {
    const order = requests.map((_, i) => (i + round) % requests.length);
    const gap = STAGGER_MS[Math.floor(round / requests.length) % STAGGER_MS.length];
    const pending: Array<Promise<Answer>> = [];
    order.forEach((i, departure) => {
      const [label, req] = requests[i];
      pending[i] = (departure === 0 ? Promise.resolve() : sleep(gap * departure)).then(() => this.send(label, req()));
    });
    return Promise.all(pending);
  }

  /** The events (`name id`, or `name *` for an id the test cannot know) the request wrote, in order. */
  wrote(answer: Answer, events: string[]): void {
    this.expected.set(answer.requestId, events);
  }

  /** An assertion on the results[0] of each `eventName` event of the request. */
  check(answer: Answer, eventName: string, check: (result: any) => void): void {
    this.checks.push({ requestId: answer.requestId, eventName, check });
  }

  /** Reads the whole feed (once it shows every event the case's requests wrote) and compares, request by request. */
  async verifyFeed(): Promise<void> {
    const [{ count }]: Array<{ count: number }> = await this.t.app
      .get(DataSource)
      .query(`SELECT count(*)::int AS count FROM events WHERE account_id = $1 AND api_request_id LIKE $2`, [
        this.accountId,
        `${this.prefix}%`,
      ]);
    const expectedCount = [...this.expected.values()].reduce((sum, events) => sum + events.length, 0);
    const ours = (events: FeedEvent[]) => events.filter((event) => event.apiRequestId.startsWith(this.prefix));
    const events = ours(await feedEvents(this.api, { until: (all) => ours(all).length >= Math.max(count, expectedCount) }));

    const byRequest = new Map<string, FeedEvent[]>();
    for (const event of events) byRequest.set(event.apiRequestId, [...(byRequest.get(event.apiRequestId) ?? []), event]);
    const sentIds = new Set(this.sent.map((answer) => answer.requestId));
    for (const requestId of byRequest.keys()) if (!sentIds.has(requestId)) throw new Error(`events of an unknown request ${requestId}`);

    for (const answer of this.sent) {
      const actual = (byRequest.get(answer.requestId) ?? []).map(eventKey);
      const expected = this.expected.get(answer.requestId) ?? [];
      const same = actual.length === expected.length && expected.every((e, i) => matches(e, actual[i]));
      if (!same) {
        throw new Error(
          `${answer.label} (${answer.requestId}) answered ${answer.status} and wrote ${JSON.stringify(actual)}; expected ${JSON.stringify(expected)}`,
        );
      }
    }
    for (const { requestId, eventName, check } of this.checks) {
      for (const event of byRequest.get(requestId) ?? []) if (event.eventName === eventName) check(event.results[0]);
    }
    expect(events.length).toBe(count);
  }
}

/**
 * Holds the first call of `target[method]` that `when` accepts until `release()`, before it runs (or, with
 * `after`, once it has returned): `reached` resolves with its arguments once it is held (the other calls
 * run as usual). For forcing one interleaving of two requests: hold the first in the middle of its
 * transaction, send the second, release. `restore()` afterwards.
 */
export function holdFirstCall<T extends object, K extends keyof T>(
  target: T,
  method: K,
  when: (...args: any[]) => boolean,
  { after = false }: { after?: boolean } = {},
): { reached: Promise<any[]>; release(): void; restore(): void } {
  const original = (target[method] as (...args: any[]) => unknown).bind(target);
  let held = false;
  let reached!: (args: any[]) => void;
  let release!: () => void;
  const reachedPromise = new Promise<any[]>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const spy = jest.spyOn(target as any, method as any).mockImplementation((async (...args: any[]) => {
    if (held || !when(...args)) return original(...args);
    held = true;
    const result = after ? await original(...args) : undefined;
    reached(args);
    await released;
    return after ? result : original(...args);
  }) as any);
  return { reached: reachedPromise, release, restore: () => spy.mockRestore() };
}

/** The database backend of a held transaction (pass its EntityManager). */
export async function backendPid(manager: { query(sql: string): Promise<any> }): Promise<number> {
  const [{ pid }] = await manager.query('SELECT pg_backend_pid() AS pid');
  return pid;
}

/** Waits until some other backend waits for a lock `pid` holds (the second request reached the first one's row). */
export async function waitUntilBlockedBy(db: DataSource, pid: number): Promise<void> {
  await waitUntil(
    async () => {
      const [{ waiting }] = await db.query(`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [
        pid,
      ]);
      return waiting > 0;
    },
    10_000,
    `a backend blocked by ${pid}`,
    10,
  );
}
