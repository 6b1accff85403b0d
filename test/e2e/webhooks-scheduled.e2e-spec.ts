import { randomBytes } from 'node:crypto';
import { DEVELOPMENT_KEYRING } from '../../src/config/keyring';
import { WebhookAttemptPipeline } from '../../src/modules/webhooks/engine/pipeline/webhook-attempt-pipeline.service';
import { newSigningSecret } from '../../src/modules/webhooks/subscriptions/webhook-subscription.rules';
import { newId, newIdAt } from '../../src/platform/ids/ids';
import { PeriodicTaskLock } from '../../src/platform/scheduling/periodic-task-lock';
import { Scheduler } from '../../src/platform/scheduling/scheduler';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { createPrivateDatabase, PrivateDatabase } from '../support/private-services';
import { dropRedisPrefix, redisKeys } from '../support/test-env';
import { waitUntil } from '../support/wait';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { publishEvent, subscribe, verifyWithLibrary, waitForFinalDeliveries } from '../support/webhooks';
import { openStored } from '../support/webhooks-api';
import { startWorker, TestWorker } from '../support/worker';
import { EVENT_IDS } from '../../src/modules/events/events.ids';
import { WEBHOOK_IDS } from '../../src/modules/webhooks/webhooks.ids';

/**
 * The sweep and retention as they run in production: on the worker's in-process scheduler with short
 * intervals. They scan the whole database, so this file has a database of its own (no other file's
 * rows to sweep) and its own Redis prefix.
 */
describe('webhook periodic tasks', () => {
  let db: PrivateDatabase;
  let env: Record<string, string>;
  let t: TestApp;
  let worker: TestWorker;
  let account: TestAccount;
  let api: ApiClient;
  let receiver: WebhookReceiver;

  async function insertEvent(extra: { createdAt?: string; dispatched?: boolean } = {}): Promise<string> {
    const id = newId(EVENT_IDS.event);
    await db.query(
      `INSERT INTO events (id, account_id, event_name, client_request_id, api_request_id, results, created_at, dispatched_at)
       VALUES ($1, $2, 'property.create', 'client_sql', 'req_sql', '[{"via":"sql"}]', COALESCE($3::timestamptz, now()), CASE WHEN $4 THEN now() END)`,
      [id, account.accountId, extra.createdAt ?? null, extra.dispatched ?? false],
    );
    return id;
  }

  beforeAll(async () => {
    db = await createPrivateDatabase('scheduled');
    env = {
      DATABASE_URL: db.url,
      REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-scheduled`,
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_SWEEP_INTERVAL_MS: '200',
      WEBHOOK_RETENTION_INTERVAL_MS: '300',
    };
    t = await startApp(env);
    worker = await startWorker(env);
    account = await createAccount(t);
    api = clientFor(t, account);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await receiver?.close();
    await db?.drop();
    await dropRedisPrefix(t.config.redis, env.REDIS_PREFIX);
  });

  it('runs the sweep, retention and the secrets upkeep in the worker, with nothing scheduled in Redis', async () => {
    expect(worker.ctx.get(Scheduler).taskNames().sort()).toEqual([
      'legacy-batch-retention',
      'partition-upkeep',
      'webhook-retention',
      'webhook-secrets',
      'webhook-sweep',
    ]);
    {
      // Keys are `<prefix>:{<queue>}:<queue>:…` (queuePrefix): the hash tag names the queue.
      const queues = new Set(
        (await redisKeys(t.config.redis, `${env.REDIS_PREFIX}:*`)).map((key) => key.split(':')[1].replace(/^\{(.*)\}$/, '$1')),
      );
      // Queues of jobs only (the reminders' delayed due jobs, the legacy batches', the calendar syncs' and the webhook replays'), no schedule.
      const jobQueues = ['webhook-dispatch', 'webhook-delivery', 'webhook-replay', 'reminder-due', 'legacy-batch', 'calendar-sync'];
      expect([...queues].filter((queue) => !jobQueues.includes(queue))).toEqual([]);
    }
  });

  it('delivers an event whose dispatch job was lost, through the scheduled sweep', async () => {
    const sub = await subscribe(api, `${receiver.url}/lost-dispatch`);
    // Written straight to the table: no onCommitted listener, so no dispatch job ever existed.
    const eventId = await insertEvent();
    const [request] = await receiver.waitFor(1, 15_000, (q) => q.path === '/lost-dispatch');
    expect(JSON.parse(request.rawBody)).toMatchObject({ eventName: 'property.create', results: [{ via: 'sql' }] });
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row).toMatchObject({ eventId, status: 'delivered', attemptCount: 1 });
    const [task] = await db.query(`SELECT last_started_at, last_finished_at, last_error FROM periodic_tasks WHERE name = 'webhook-sweep'`);
    expect(task).toMatchObject({ last_started_at: expect.any(Date), last_error: null });
  });

  it('re-sends a pending attempt whose job was lost, through the scheduled sweep', async () => {
    const sub = await subscribe(api, `${receiver.url}/lost-attempt`);
    const eventId = await insertEvent({ dispatched: true });
    const deliveryId = newId(WEBHOOK_IDS.delivery);
    await db.query(
      `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, status, next_retry_at)
       VALUES ($1, $2, $3, $4, 'property.create', 'pending', now() - interval '1 hour')`,
      [deliveryId, account.accountId, sub.id, eventId],
    );
    const [request] = await receiver.waitFor(1, 15_000, (q) => q.path === '/lost-attempt');
    expect(request.headers['webhook-id']).toBe(deliveryId);
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row).toMatchObject({ id: deliveryId, status: 'delivered' });
  });

  it('deletes rows past the 90-day retention through the scheduled job', async () => {
    const sub = await subscribe(api, `${receiver.url}/retention`);
    const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 3600 * 1000).toISOString();
    // Rows of the past have ids of their time: the id places a row in its time partition.
    const [oldEvent, newEvent, oldDelivery, newDelivery] = [
      newIdAt(EVENT_IDS.event, new Date(daysAgo(91))),
      newIdAt(EVENT_IDS.event, new Date(daysAgo(89))),
      newIdAt(WEBHOOK_IDS.delivery, new Date(daysAgo(91))),
      newIdAt(WEBHOOK_IDS.delivery, new Date(daysAgo(89))),
    ];
    // Each event with its delivery in one statement: the retention task runs every 300 ms and could
    // otherwise delete the old event before its delivery is written.
    for (const [eventId, deliveryId, days] of [
      [oldEvent, oldDelivery, 91],
      [newEvent, newDelivery, 89],
    ] as const) {
      await db.query(
        `WITH event AS (
           INSERT INTO events (id, account_id, event_name, client_request_id, api_request_id, results, created_at, dispatched_at)
           VALUES ($1, $3, 'property.create', 'client_sql', 'req_sql', '[{"via":"sql"}]', $5, now())
           RETURNING id
         )
         INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, status, created_at)
         SELECT $2, $3, $4, event.id, 'property.create', 'delivered', $5 FROM event`,
        [eventId, deliveryId, account.accountId, sub.id, daysAgo(days)],
      );
    }
    await waitUntil(
      async () => (await db.query(`SELECT 1 FROM events WHERE id = $1`, [oldEvent])).length === 0,
      15_000,
      'the old event deleted by the scheduled retention',
    );
    const events = await db.query<{ id: string }>(`SELECT id FROM events WHERE id = ANY($1)`, [[oldEvent, newEvent]]);
    expect(events.map((e) => e.id)).toEqual([newEvent]);
    const deliveries = await db.query<{ id: string }>(`SELECT id FROM webhook_deliveries WHERE id = ANY($1)`, [[oldDelivery, newDelivery]]);
    expect(deliveries.map((d) => d.id)).toEqual([newDelivery]);
  });

  /** A subscription stored the way it was before secrets were sealed: the secret itself in the column. */
  async function legacySubscription(path: string): Promise<{ id: string; secret: string }> {
    const id = newId(WEBHOOK_IDS.subscription);
    const secret = newSigningSecret();
    await db.query(
      `INSERT INTO webhook_subscriptions (id, account_id, url, event_filters, max_retries, signing_secret)
       VALUES ($1, $2, $3, '{*}', 5, $4)`,
      [id, account.accountId, `${receiver.url}${path}`, secret],
    );
    return { id, secret };
  }

  async function storedSecrets(id: string): Promise<{ signing_secret: string; previous_secret: string | null }> {
    const [row] = await db.query<{ signing_secret: string; previous_secret: string | null }>(
      `SELECT signing_secret, previous_secret FROM webhook_subscriptions WHERE id = $1`,
      [id],
    );
    return row;
  }

  it('seals a secret stored in plaintext before encryption, and signs with it before and after', async () => {
    const legacy = await legacySubscription('/legacy');
    await publishEvent(t, account.accountId, 'property.create');
    const [before] = await receiver.waitFor(1, 10_000, (q) => q.path === '/legacy');
    expect(verifyWithLibrary(before, legacy.secret)).toBeTruthy();

    const sealed = await waitUntil(
      async () => {
        const row = await storedSecrets(legacy.id);
        return row.signing_secret.startsWith('v1.dev.') ? row : undefined;
      },
      15_000,
      'the secrets upkeep to seal the legacy secret',
    );
    expect(openStored(sealed.signing_secret, legacy.id)).toBe(legacy.secret);
    await publishEvent(t, account.accountId, 'property.create');
    const [, after] = await receiver.waitFor(2, 10_000, (q) => q.path === '/legacy');
    expect(verifyWithLibrary(after, legacy.secret)).toBeTruthy();
  });

  it('clears a replaced secret once its 24-hour overlap has ended', async () => {
    const sub = await subscribe(api, `${receiver.url}/overlap`);
    await api.post(`/v1/webhooks/${sub.id}/rotateSecret`).expect(200);
    expect(openStored((await storedSecrets(sub.id)).previous_secret, sub.id)).toBe(sub.signingSecret);
    await db.query(`UPDATE webhook_subscriptions SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [sub.id]);
    await waitUntil(async () => (await storedSecrets(sub.id)).previous_secret === null, 15_000, 'the expired previous secret cleared');
    const [row] = await db.query(`SELECT previous_secret_expires_at FROM webhook_subscriptions WHERE id = $1`, [sub.id]);
    expect(row.previous_secret_expires_at).toBeNull();
  });

  it('completes a key rotation: with a new key first, every secret is sealed again and deliveries still verify', async () => {
    const sub = await subscribe(api, `${receiver.url}/rotation`);
    const rotated = (await api.post(`/v1/webhooks/${sub.id}/rotateSecret`).expect(200)).body;
    const dev = DEVELOPMENT_KEYRING[0].key.toString('base64');
    await worker.close();
    worker = await startWorker({ ...env, SECRETS_ENCRYPTION_KEY: `k2:${randomBytes(32).toString('base64')},dev:${dev}` });
    await waitUntil(
      async () => {
        const [row] = await db.query<{ left: number }>(
          `SELECT count(*)::int AS left FROM webhook_subscriptions
            WHERE NOT starts_with(signing_secret, 'v1.k2.') OR NOT starts_with(previous_secret, 'v1.k2.')`,
        );
        return row.left === 0;
      },
      15_000,
      'every secret sealed with k2',
    );
    await publishEvent(t, account.accountId, 'property.create');
    const [request] = await receiver.waitFor(1, 10_000, (q) => q.path === '/rotation');
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWithLibrary(request, rotated.signingSecret)).toBeTruthy();
    expect(verifyWithLibrary(request, sub.signingSecret)).toBeTruthy();

    // A worker no longer holding the key a secret was sealed with sends nothing for it.
    const stranger = await startWorker({ ...env, SECRETS_ENCRYPTION_KEY: `k3:${randomBytes(32).toString('base64')}` });
    try {
      const deliveryId = newId(WEBHOOK_IDS.delivery);
      await db.query(
        `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_name, test, test_payload, status, next_retry_at)
         VALUES ($1, $2, $3, 'x.y', true, '{}', 'pending', now() + interval '1 hour')`,
        [deliveryId, account.accountId, sub.id],
      );
      expect(await stranger.ctx.get(WebhookAttemptPipeline).attempt({ deliveryId, attempt: 0 })).toEqual({
        kind: 'dropped',
        reason: 'unsignable',
      });
    } finally {
      await stranger.close();
    }
  });

  it('runs a task once per interval across workers sharing the database', async () => {
    const second = await startWorker(env);
    try {
      const workers = [worker, second];
      const runs: number[] = [];
      const claimed = workers.map(() => 0);
      workers.forEach((w, i) => {
        const lock = w.ctx.get(PeriodicTaskLock);
        const claim = lock.claim.bind(lock);
        jest.spyOn(lock, 'claim').mockImplementation(async (name, intervalMs) => {
          const result = await claim(name, intervalMs);
          if (name === 'probe') claimed[i]++;
          return result;
        });
      });
      // A long interval: both workers look within its first tenth (the jitter), and only one may run it.
      for (const [i, w] of workers.entries()) {
        w.ctx.get(Scheduler).register({ name: 'probe', intervalMs: 20_000, run: async () => void runs.push(i) });
      }
      const finishedAt = async () =>
        (await db.query(`SELECT last_finished_at FROM periodic_tasks WHERE name = 'probe'`))[0]?.last_finished_at;
      // The winner records its finish after its run returns, so wait for that too (not only for both claims).
      await waitUntil(
        async () => claimed.every((n) => n >= 1) && (await finishedAt()) instanceof Date,
        15_000,
        'both workers to try the probe task and the winner to finish it',
      );
      expect(runs).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
