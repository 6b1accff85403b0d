import { Client } from 'pg';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { CursorCodec } from '../../src/platform/pagination/cursor';
import { bootApp, httpClient, interleave, ms, stats, timeRequest } from '../support';

const SMALL = 10_000;
const LARGE = Number(process.env.BENCH_PROPERTIES_LARGE ?? 1_000_000);
const PAGE = 50;

/** Valid, time-ordered-looking property ids: `prop_01` + 24 digits (all Crockford base32). */
const idOf = (n: number) => `prop_01${String(n).padStart(24, '0')}`;

/** Rows shaped like the API writes them (details, tags, bed details), inserted set-wise. */
async function seed(db: Client, accountId: string, from: number, to: number): Promise<void> {
  for (let start = from; start <= to; start += 100_000) {
    const end = Math.min(to, start + 99_999);
    await db.query(
      `INSERT INTO properties (id, account_id, source_id, name, country_code, time_zone, latitude, longitude, address, type,
                               beds, bedrooms, bathrooms, tags, bed_details, details, created_at, updated_at)
       SELECT 'prop_01' || lpad(i::text, 24, '0'), $1, 'src-' || i, 'Bench property ' || i, 'FR', 'Europe/Paris',
              48.85 + (i % 1000) / 10000.0, 2.35 + (i % 1000) / 10000.0, 'France', 'apartment', 2, 1, 1,
              ARRAY['bench', 'tag-' || (i % 10)],
              '[{"bedType":"queen","twinable":false,"displayLabel":"Queen bed","quantity":1}]'::jsonb,
              jsonb_build_object('information', 'Bench property number ' || i, 'wifiName', 'wifi-' || i),
              now(), now()
         FROM generate_series($2::int, $3::int) AS i`,
      [accountId, start, end],
    );
  }
  await db.query('ANALYZE properties');
}

/**
 * Issue 3's budget: getting a property by id and reading a list page cost the
 * same at 1,000,000 properties as at 10,000 (within 1.5x), because an index
 * serves every query. Measured through the API and, as the raw baseline, the
 * same lookups as plain SQL on one connection, at both table sizes in one run.
 */
export async function propertiesScale() {
  const { app, config, origin } = await bootApp();
  const { accountId, apiKey } = await app.get(AccountsService).createAccount({ name: 'bench', plan: 'pro', active: true });
  const cursors = app.get(CursorCodec);
  const db = new Client({ connectionString: config.databaseUrl });
  await db.connect();
  const api = httpClient(origin);
  const headers = { 'x-api-key': apiKey };

  const measure = async (size: number) => {
    const randomId = () => idOf(1 + Math.floor(Math.random() * (size - PAGE - 1)));
    const variants = {
      apiGet: () => timeRequest(api, `/v1/properties/${randomId()}`, headers),
      apiList: () => timeRequest(api, `/v1/properties?limit=${PAGE}&cursor=${cursors.encode('properties', [randomId()])}`, headers),
      sqlGet: async () => {
        const start = process.hrtime.bigint();
        await db.query('SELECT * FROM properties WHERE account_id = $1 AND id = $2', [accountId, randomId()]);
        return Number(process.hrtime.bigint() - start) / 1e6;
      },
      sqlList: async () => {
        const start = process.hrtime.bigint();
        await db.query('SELECT * FROM properties WHERE account_id = $1 AND id > $2 ORDER BY id LIMIT $3', [
          accountId,
          randomId(),
          PAGE + 1,
        ]);
        return Number(process.hrtime.bigint() - start) / 1e6;
      },
    };
    await interleave(variants, 1, 200);
    const samples = await interleave(variants, 5, 200);
    return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stats(v)])) as Record<
      keyof typeof variants,
      ReturnType<typeof stats>
    >;
  };

  await seed(db, accountId, 1, SMALL);
  const small = await measure(SMALL);
  process.stderr.write(`  seeding up to ${LARGE} properties...\n`);
  await seed(db, accountId, SMALL + 1, LARGE);
  const large = await measure(LARGE);

  await api.close();
  await db.end();
  await app.close();

  const ratio = (k: keyof typeof small) => large[k].p50 / small[k].p50;
  const row = (label: string, k: keyof typeof small) => [
    label,
    ms(small[k].p50),
    ms(large[k].p50),
    `${ratio(k).toFixed(2)}x`,
    ms(large[k].p95),
  ];
  const pass = ratio('apiGet') <= 1.5 && ratio('apiList') <= 1.5;
  return {
    name: 'properties-scale',
    budget: `API get and list-page p50 at ${LARGE.toLocaleString('en')} rows within 1.5x of ${SMALL.toLocaleString('en')}`,
    pass,
    results: {
      small,
      large,
      ratios: { apiGet: ratio('apiGet'), apiList: ratio('apiList'), sqlGet: ratio('sqlGet'), sqlList: ratio('sqlList') },
    },
    table: [
      [
        'query',
        `p50 at ${SMALL.toLocaleString('en')}`,
        `p50 at ${LARGE.toLocaleString('en')}`,
        'ratio',
        `p95 at ${LARGE.toLocaleString('en')}`,
      ],
      row('GET /v1/properties/{id}', 'apiGet'),
      row(`GET /v1/properties?cursor=…&limit=${PAGE}`, 'apiList'),
      row('raw SQL: select by (account_id, id)', 'sqlGet'),
      row(`raw SQL: keyset page of ${PAGE + 1}`, 'sqlList'),
    ],
  };
}
