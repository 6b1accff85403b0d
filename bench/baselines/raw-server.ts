import { createHash, randomBytes } from 'node:crypto';
import express from 'express';
import type { Request } from 'express';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { CREATE_STATEMENTS, FIND_KEY } from '../support/booking-create-sql';

/*
 * The raw ceilings for S1, S2 and S3: bare Express with `pg` and ioredis, doing the same work as the
 * API's route without anything else (no Nest, no validation, no rate limit, no logging).
 *   GET /health: SELECT 1 and a Redis PING, side by side.
 *   GET /v1/properties/:id: the same key lookup (sha256 of x-api-key, joined to its account) and
 *   the same property read, each a prepared statement.
 *   POST /v1/bookings: the key lookup, then the create's transaction (bench/support/booking-create-sql.ts)
 *   with the body's values, each statement prepared; answers the booking row.
 * `node raw-server.js '{"port":N,"databaseUrl":"...","redisUrl":"..."}'`
 */
const { port, databaseUrl, redisUrl } = JSON.parse(process.argv[2]) as { port: number; databaseUrl: string; redisUrl: string };
const pool = new Pool({ connectionString: databaseUrl, max: 20 });
const redis = new Redis(redisUrl);

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

function findCaller(req: Request): Promise<{ accountId: string } | undefined> {
  const hash = createHash('sha256')
    .update(req.header('x-api-key') ?? '', 'utf8')
    .digest();
  return pool.query<{ accountId: string }>({ name: 'find_key', text: FIND_KEY, values: [hash] }).then(({ rows }) => rows[0]);
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
