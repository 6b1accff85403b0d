import { createHash } from 'node:crypto';
import express from 'express';
import Redis from 'ioredis';
import { Pool } from 'pg';

/*
 * The raw ceilings for S1 and S2: bare Express with `pg` and ioredis, doing the same work as the
 * API's route without anything else (no Nest, no validation, no rate limit, no logging).
 *   GET /health: SELECT 1 and a Redis PING, side by side.
 *   GET /v1/properties/:id: the same key lookup (sha256 of x-api-key, joined to its account) and
 *   the same property read, each a prepared statement.
 * `node raw-server.js '{"port":N,"databaseUrl":"...","redisUrl":"..."}'`
 */
const { port, databaseUrl, redisUrl } = JSON.parse(process.argv[2]) as { port: number; databaseUrl: string; redisUrl: string };
const pool = new Pool({ connectionString: databaseUrl, max: 20 });
const redis = new Redis(redisUrl);

const FIND_KEY = `SELECT k.id AS "apiKeyId", k.account_id AS "accountId", a.plan, a.subscription_status AS "subscriptionStatus"
                    FROM api_keys k JOIN accounts a ON a.id = k.account_id
                   WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;
const FIND_PROPERTY = `SELECT p.*, ARRAY(SELECT pp.id FROM property_pictures pp
                                          WHERE pp.account_id = p.account_id AND pp.property_id = p.id ORDER BY pp.id) AS picture_ids
                         FROM properties p WHERE p.account_id = $1 AND p.id = $2`;

const app = express();
app.disable('x-powered-by');

app.get('/health', (_req, res, next) => {
  Promise.all([pool.query('SELECT 1'), redis.ping()])
    .then(() => res.json({ status: 'ok', checks: { database: 'up', redis: 'up' } }))
    .catch(next);
});

app.get('/v1/properties/:id', (req, res, next) => {
  const key = req.header('x-api-key') ?? '';
  const hash = createHash('sha256').update(key, 'utf8').digest();
  pool
    .query({ name: 'find_key', text: FIND_KEY, values: [hash] })
    .then(async ({ rows: [caller] }) => {
      if (!caller) return void res.status(401).json({ code: 'unauthorized' });
      const { rows } = await pool.query({ name: 'find_property', text: FIND_PROPERTY, values: [caller.accountId, req.params.id] });
      if (!rows[0]) return void res.status(404).json({ code: 'notFound' });
      res.json(rows[0]);
    })
    .catch(next);
});

app.listen(port, '127.0.0.1');
