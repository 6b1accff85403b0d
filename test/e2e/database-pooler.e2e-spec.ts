import { createAccount, clientFor, startApp, TestApp } from '../support/app';
import { PgBouncer, startPgBouncer } from '../support/pgbouncer';
import { testPrerequisites } from '../support/prerequisites';
import { createProperty } from '../support/properties';
import { testEnvironment, TEST_RUN_ID } from '../support/test-env';

/**
 * The hot reads (src/platform/database/sql.ts: the key lookup, a property, the property list, the
 * health check) behind PgBouncer in transaction mode with DATABASE_POOLER=transaction. Its pool has
 * two server connections for the API's many, so consecutive statements of one API connection land on
 * different server connections: a named prepared statement would be missing on the other one (or
 * already exist there), which answered 500 before.
 */
describe('Hot reads behind PgBouncer in transaction mode (DATABASE_POOLER=transaction)', () => {
  let bouncer: PgBouncer;
  let t: TestApp;

  beforeAll(async () => {
    const { DATABASE_URL } = testEnvironment(TEST_RUN_ID);
    bouncer = await startPgBouncer(testPrerequisites().pgbouncer, DATABASE_URL, { poolMode: 'transaction', poolSize: 2 });
    t = await startApp({ DATABASE_URL: bouncer.url, DATABASE_POOLER: 'transaction' });
  }, 30_000);

  afterAll(async () => {
    await t?.close();
    await bouncer?.stop();
  });

  it('answers every read, many at once, across the pooler’s server connections', async () => {
    const api = clientFor(t, await createAccount(t));
    const properties = await Promise.all([1, 2, 3].map(() => createProperty(api)));
    const ids = properties.map((p) => p.propertyId).sort();

    for (let round = 0; round < 5; round++) {
      const reads = await Promise.all([
        ...properties.flatMap((p) => [1, 2, 3, 4].map(() => api.get(`/v1/properties/${p.propertyId}`))),
        ...[1, 2, 3].map(() => api.get('/v1/properties?limit=2')),
        ...[1, 2].map(() => t.http.get('/v1/health')),
      ]);
      expect(reads.map((res) => res.status)).toEqual(reads.map(() => 200));
      for (const [i, p] of properties.entries()) expect(reads[i * 4].body.propertyId).toBe(p.propertyId);
      expect(reads.find((res) => res.body.status)?.body.checks.database).toBe('up');
    }

    // The list's next page (its own statement) through the same pooler.
    const first = await api.get('/v1/properties?limit=2').expect(200);
    const next = await api.get(`/v1/properties?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`).expect(200);
    expect([...first.body.data, ...next.body.data].map((p: { propertyId: string }) => p.propertyId).sort()).toEqual(ids);

    // Both server connections served the API: statements did cross connections.
    const servers = await bouncer.admin('SHOW SERVERS');
    expect(servers.filter((s) => s.database === new URL(bouncer.url).pathname.slice(1)).length).toBe(2);
  }, 60_000);
});
