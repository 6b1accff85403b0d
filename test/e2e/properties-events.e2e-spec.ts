import { DataSource } from 'typeorm';
import { requestFingerprint } from '../../src/platform/http/idempotency.rules';
import { IdempotencyStore } from '../../src/platform/idempotency/idempotency.store';
import { clientFor, createAccount, suite } from '../support/app';
import { feedEvents } from '../support/events';
import { uniq, validProperty } from '../support/properties';

describe('property events and idempotency', () => {
  const s = suite();

  describe('events', () => {
    it('property.create/update/delete carry the read shape (never the flag) and the request ids', async () => {
      const evApi = clientFor(s.t, await createAccount(s.t));
      const created = await evApi
        .post('/v1/properties')
        .set('Idempotency-Key', `evt-key-${uniq()}`)
        .set('x-request-id', 'req-create-1')
        .send(validProperty({ details: { access: 'a', disableRemindersAutomation: true } }))
        .expect(201);
      const id = created.body.propertyId;
      const updated = await evApi
        .patch(`/v1/properties/${id}`)
        .set('x-request-id', 'req-update-1')
        .send({ name: 'New name', details: { disableRemindersAutomation: false } })
        .expect(200);
      await evApi.delete(`/v1/properties/${id}`).expect(204);

      const events = await feedEvents(evApi, { atLeast: 3 });
      expect(events.map((e) => e.eventName)).toEqual(['property.create', 'property.update', 'property.delete']);
      const [create, update, del] = events;
      expect(create.results).toEqual([created.body]);
      expect(create.clientRequestId).toMatch(/^evt-key-/);
      expect(create.apiRequestId).toBe('req-create-1');
      expect(update.results).toEqual([updated.body]);
      expect(update.apiRequestId).toBe('req-update-1');
      expect(update.clientRequestId).toBe('req_req-update-1');
      expect(del.results).toEqual([updated.body]);
      expect(JSON.stringify(events)).not.toContain('disableRemindersAutomation');
      // A failed write, or an update with nothing in it, emits nothing.
      await evApi
        .post('/v1/properties')
        .send(validProperty({ beds: -1 }))
        .expect(400);
      const kept = await evApi.post('/v1/properties').send(validProperty()).expect(201);
      await evApi.patch(`/v1/properties/${kept.body.propertyId}`).send({}).expect(200);
      expect((await feedEvents(evApi, { atLeast: 4 })).map((e) => e.eventName)).toEqual([
        'property.create',
        'property.update',
        'property.delete',
        'property.create',
      ]);
    });
  });

  describe('Idempotency-Key on POST /v1/properties', () => {
    it('replays the first response with Idempotent-Replayed and creates one property and one event', async () => {
      const acct = await createAccount(s.t);
      const c = clientFor(s.t, acct);
      const key = `idem-${uniq()}`;
      const body = validProperty();
      const first = await c.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const second = await c.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.body).toEqual(first.body);
      expect(second.text).toBe(first.text); // byte for byte, key order included
      expect((await c.get('/v1/properties').expect(200)).body.data).toHaveLength(1);
      const [stored] = await s.t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM events WHERE account_id = $1`, [acct.accountId]);
      expect(stored.n).toBe(1);
      const events = await feedEvents(c, { atLeast: 1 });
      expect(events).toHaveLength(1);
      expect(events[0].clientRequestId).toBe(key);
      // The event carries the resource exactly as the API returned it, key order included.
      expect(JSON.stringify(events[0].results)).toBe(JSON.stringify([first.body]));
    });

    it('the same key with another body is a 422 idempotencyKeyReused', async () => {
      const key = `idem-${uniq()}`;
      await s.api.post('/v1/properties').set('Idempotency-Key', key).send(validProperty()).expect(201);
      const res = await s.api.post('/v1/properties').set('Idempotency-Key', key).send(validProperty()).expect(422);
      expect(res.body.code).toBe('idempotencyKeyReused');
    });

    it('the same key while the first request is in flight is a 409 idempotencyKeyInProgress', async () => {
      const key = `idem-${uniq()}`;
      const body = validProperty();
      const outcome = await s.t.app
        .get(IdempotencyStore)
        .claim(s.account.accountId, key, requestFingerprint('POST', '/v1/properties', body));
      expect(outcome.kind).toBe('claimed');
      const res = await s.api.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(409);
      expect(res.body.code).toBe('idempotencyKeyInProgress');
      await s.api.get(`/v1/properties?limit=100`).expect(200);
      const [row] = await s.t.app
        .get(DataSource)
        .query(`SELECT count(*)::int AS n FROM properties WHERE account_id = $1 AND source_id = $2`, [s.account.accountId, body.sourceId]);
      expect(row.n).toBe(0);
    });

    it('keys are scoped per account', async () => {
      const key = `idem-${uniq()}`;
      const body = validProperty();
      const a = await s.api.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(201);
      const b = await s.otherApi.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(201);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect(b.body.propertyId).not.toBe(a.body.propertyId);
    });

    it('a failed request does not consume the key', async () => {
      const key = `idem-${uniq()}`;
      const body = validProperty();
      await s.api
        .post('/v1/properties')
        .set('Idempotency-Key', key)
        .send({ ...body, beds: 'two' })
        .expect(400);
      const ok = await s.api.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(201);
      expect(ok.headers['idempotent-replayed']).toBeUndefined();
      // A conflict (409) is a failure too: the key stays usable.
      const dupKey = `idem-${uniq()}`;
      await s.api.post('/v1/properties').set('Idempotency-Key', dupKey).send(body).expect(409);
      await s.api.post('/v1/properties').set('Idempotency-Key', dupKey).send(validProperty()).expect(201);
    });

    it('an invalid key header is a 400', async () => {
      const res = await s.api.post('/v1/properties').set('Idempotency-Key', 'k'.repeat(256)).send(validProperty()).expect(400);
      expect(res.body.code).toBe('invalidIdempotencyKey');
      await s.api.post('/v1/properties').set('Idempotency-Key', 'k'.repeat(255)).send(validProperty()).expect(201);
    });
  });
});
