import { createHash, randomBytes } from 'node:crypto';
import express from 'express';
import type { Request } from 'express';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { CREATE_STATEMENTS, FIND_KEY } from '../support/booking-create-sql';
import { RATE_LIMIT_LUA } from '../../src/platform/http/rate-limit.script';

/*
 * The raw ceilings for S1, S2 and S3: bare Express with `pg` and ioredis, doing the same work as the
 * API's route without anything else (no Nest, no validation, no logging).
 *   GET /health: SELECT 1 and a Redis PING, side by side.
 *   GET /v1/properties/:id: the same key lookup (sha256 of x-api-key, joined to its account) and,
 *   beside it, the key's rate limit (the API's own Lua script, its 'key' operation, on a connection
 *   with auto-pipelining as the API's limiter), then the same property read, each a prepared statement.
 *   POST /v1/bookings: the key lookup and its rate limit, then the create's transaction
 *   (bench/support/booking-create-sql.ts) with the body's values, each statement prepared; answers the booking row.
 * `node raw-server.js '{"port":N,"databaseUrl":"...","redisUrl":"...","redisPrefix":"..."}'`
 */
const { port, databaseUrl, redisUrl, redisPrefix } = JSON.parse(process.argv[2]) as {
  port: number;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
};
const pool = new Pool({ connectionString: databaseUrl, max: 20 });
const redis = new Redis(redisUrl);
// The limiter's connection as the API opens it (rate-limit.service.ts): fail fast, concurrent scripts in one write.
const limiter = new Redis(redisUrl, { maxRetriesPerRequest: 0, enableOfflineQueue: false, enableAutoPipelining: true });
limiter.defineCommand('rateLimit', { numberOfKeys: 5, lua: RATE_LIMIT_LUA });
const rateLimit = (limiter as unknown as { rateLimit(...args: Array<string | number>): Promise<number[]> }).rateLimit.bind(limiter);
const PREFIX = `${redisPrefix}:rl`;
// The bench API's limits (bench/support/env.ts), far past the load: counted on every request, never refusing.
const LIMITS = [1_000_000, 1_000_000, 1000, 10_000, 1_000_000_000, 86_400_000, 20, 80];

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

/** The key lookup and, beside it, the key's rate-limit script (as ApiKeyGuard: one stage of two round trips). */
function findCaller(req: Request): Promise<{ accountId: string } | undefined> {
  const hash = createHash('sha256')
    .update(req.header('x-api-key') ?? '', 'utf8')
    .digest();
  const id = hash.subarray(0, 16).toString('base64url');
  const [lookup, limit] = [
    pool.query<{ accountId: string }>({ name: 'find_key', text: FIND_KEY, values: [hash] }),
    rateLimit(`${PREFIX}:w:${id}`, `${PREFIX}:b:${id}`, `${PREFIX}:d:${id}`, `${PREFIX}:fw:-`, `${PREFIX}:fb:-`, 'key', ...LIMITS, 0, 0, 0),
  ];
  return Promise.all([lookup, limit]).then(([{ rows }, [outcome]]) => (outcome === 0 ? rows[0] : undefined));
}

app.get('/v1/properties/:id', (req, res, next) => {
  findCaller(req)
    .then(async (caller) => {
      if (!caller) return void res.status(401).json({ code: 'unauthorized' });
      const { rows } = await pool.query({ name: 'find_property', text: FIND_PROPERTY, values: [caller.accountId, req.params.id] });
      if (!rows[0]) return void res.status(404).json({ code: 'notFound' });
      res.json(rows[0]);
    })
    .catch(next);
});

interface BookingBody {
  sourceBookingId: string;
  propertyId: string;
  startDate: string;
  endDate: string;
  numberOfGuests: number;
  guestDetails: unknown[];
  tags: string[];
}

let created = 0;
const runId = randomBytes(4).toString('hex');

app.post('/v1/bookings', express.json(), (req, res, next) => {
  const body = req.body as BookingBody;
  const n = `${runId}_${++created}`;
  const prepared = (name: keyof typeof CREATE_STATEMENTS, values: unknown[]) => ({
    name: `create_${name}`,
    text: CREATE_STATEMENTS[name],
    values,
  });
  findCaller(req)
    .then(async (caller) => {
      if (!caller) return void res.status(401).json({ code: 'unauthorized' });
      const { accountId } = caller;
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const property = await client.query(prepared('property', [accountId, body.propertyId]));
        if (!property.rows[0]) throw new Error('no such property');
        const { rows: bookings } = await client.query(
          prepared('booking', [
            `bk_raw_${n}`,
            accountId,
            body.propertyId,
            body.sourceBookingId,
            body.startDate,
            body.endDate,
            body.numberOfGuests,
            JSON.stringify(body.guestDetails),
            body.tags,
          ]),
        );
        await client.query(prepared('event', [`evt_raw_${n}`, accountId, 'booking.create', 'req_raw', JSON.stringify(bookings)]));
        const { rows: reminders } = await client.query(
          prepared('reminder', [
            `rem_raw_${n}`,
            accountId,
            body.propertyId,
            `Turnover after booking ${body.sourceBookingId}`,
            body.endDate,
            body.sourceBookingId,
          ]),
        );
        await client.query(prepared('event', [`evtr_raw_${n}`, accountId, 'reminder.create', 'req_raw', JSON.stringify(reminders)]));
        await client.query('COMMIT');
        res.status(201).json(bookings[0]);
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    })
    .catch(next);
});

app.listen(port, '127.0.0.1');
