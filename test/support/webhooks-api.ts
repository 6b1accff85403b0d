import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/config';
import { openSecret } from '../../src/platform/secrets/secret-box.rules';
import { ApiClient, suite, Suite } from './app';

/**
 * Setup shared by the webhook subscriptions API tests. No worker runs there: test deliveries
 * stay pending in the file's own Redis prefix, where no other file's worker can take them.
 */

let seq = 0;
/** A distinct URL that passes the policy with ALLOW_PRIVATE_URLS=true (localhost resolves through /etc/hosts). */
export function hookUrl(): string {
  seq += 1;
  return `https://localhost/hooks/${Date.now()}-${seq}`;
}

/** The app with two accounts (`suite`), in the file's own Redis prefix, and the subscription helpers bound to them. */
export interface WebhooksApiSuite extends Suite {
  /** createSubscription as the first account, or as `client`. */
  create(body?: Record<string, unknown>, client?: ApiClient): Promise<Record<string, any>>;
  /** subscriptionRow in the suite's database. */
  row(id: string): Promise<Record<string, any>>;
}

export function webhooksApiSuite(redisPrefix: string): WebhooksApiSuite {
  const s = suite({ env: { REDIS_PREFIX: redisPrefix } }) as WebhooksApiSuite;
  s.create = (body = {}, client = s.api) => createSubscription(client, body);
  s.row = (id) => subscriptionRow(s.db, id);
  return s;
}

/** POST /v1/webhooks with a fresh URL and every event, overridden by `body`; returns the 201 body. */
export async function createSubscription(client: ApiClient, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await client
    .post('/v1/webhooks')
    .send({ url: hookUrl(), eventFilters: ['*'], ...body })
    .expect(201);
  return res.body as Record<string, any>;
}

/** The stored subscription row (secrets and counters included). */
export async function subscriptionRow(db: DataSource, id: string): Promise<Record<string, any>> {
  const [found] = await db.query(`SELECT * FROM webhook_subscriptions WHERE id = $1`, [id]);
  return found;
}

/** A stored (sealed) secret opened with the test run's keys, as the worker opens it to sign. */
export function openStored(stored: string | null, subscriptionId: string): string | null {
  return stored === null ? null : openSecret(stored, loadConfig(process.env).secretsKeyring, subscriptionId);
}
