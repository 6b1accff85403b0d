import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import type { Pool } from 'undici';
import { propertyBody, seedAccount, SeededAccount, webhookEnv } from '../support/env';
import { BenchContext, Outcome, postJson } from '../support/context';
import { startWorker } from '../support/processes';

const EVENTS = 1000;
const SUBSCRIPTIONS = 10;

/**
 * S12, receivers behind authentication (issue 42): S5's fan-out (1,000 events × 10 subscriptions, one
 * worker) with one subscription sending custom `headers` and one an OAuth2 token (from a token endpoint
 * in this process), against the same fan-out with neither, side by side in one run: all ten's
 * deliveries/s. Honesty: every delivery once, and one token request for the whole run.
 */
export async function receiverAuth(ctx: BenchContext): Promise<Outcome> {
  const { pool } = await ctx.webhookApi();
  const receiver = await ctx.receiver();
  const tokens = await tokenEndpoint();
  const problems: string[] = [];
  try {
    const plain = await fanout(ctx, pool, receiver, 'plain', null, problems);
    const authed = await fanout(ctx, pool, receiver, 'authed', tokens.url, problems);
    if (tokens.requests() !== 1) problems.push(`${tokens.requests()} token requests (1 expected)`);
    const ratio = authed / plain;
    return {
      ours: `${Math.round(authed)} deliveries/s with one headers and one oauth2 subscription among ten (${tokens.requests()} token request)`,
      baseline: `S5 without: ${Math.round(plain)} deliveries/s`,
      ratio: `${ratio.toFixed(2)}x`,
      pass: problems.length === 0 && ratio >= 0.9,
      dishonest: problems.length ? problems.join('; ') : undefined,
      details: { plain, authed, tokenRequests: tokens.requests() },
    };
  } finally {
    await tokens.close();
  }
}

/** A client-credentials token endpoint answering at once (one token for an hour), counting requests. */
async function tokenEndpoint(): Promise<{ url: string; requests(): number; close(): Promise<void> }> {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: `bench-${count}`, expires_in: 3600 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    requests: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function createProperties(pool: Pool, account: SeededAccount, count: number): Promise<number> {
  let next = 0;
  let ok = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < count) {
        const res = await postJson(pool, account.apiKey, '/v1/properties', propertyBody(next++));
        if (res.status === 201) ok++;
      }
    }),
  );
  return ok;
}

/** The fan-out, with (tokenUrl given) or without receiver authentication on two of its ten subscriptions: deliveries/s of all ten. */
async function fanout(
  ctx: BenchContext,
  pool: Pool,
  receiver: string,
  name: string,
  tokenUrl: string | null,
  problems: string[],
): Promise<number> {
  const account = await seedAccount(ctx.db, `s12-${name}`);
  const path = `/s12-${name}`;
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const auth =
      tokenUrl === null
        ? {}
        : i === 0
          ? { headers: { 'X-Api-Key': 'bench-key-0123456789', 'X-Tenant': 'bench' } }
          : i === 1
            ? { oauth2: { tokenUrl, clientId: 'bench', clientSecret: 'bench-secret', scope: 'hooks' } }
            : {};
    const body = JSON.stringify({ url: `${receiver}${path}?subscription=${i}`, eventFilters: ['property.create'], ...auth });
    const created = await postJson(pool, account.apiKey, '/v1/webhooks', body);
    if (created.status !== 201) throw new Error(`creating a subscription answered ${created.status}: ${JSON.stringify(created.body)}`);
  }
  await ctx.resetReceiver();
  const ok = await createProperties(pool, account, EVENTS);
  const worker = ctx.track(startWorker(`worker-s12-${name}`, webhookEnv()));
  const stats = await ctx.awaitDeliveries(path, ok * SUBSCRIPTIONS);
  await worker.stop();
  const settled = await ctx.receiverStats(path);
  if (ok !== EVENTS) problems.push(`${name}: ${EVENTS - ok} creates were not 201`);
  if (settled.posts !== settled.unique) problems.push(`${name}: ${settled.posts - settled.unique} deliveries received twice`);
  return (ok * SUBSCRIPTIONS) / ((stats.lastAt! - stats.firstAt!) / 1000);
}
