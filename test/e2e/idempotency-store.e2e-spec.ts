import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EventsService } from '../../src/modules/events/events.service';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { ConflictError, DomainError } from '../../src/platform/errors/domain-error';
import { requestFingerprint } from '../../src/platform/http/idempotency.rules';
import { ClaimOutcome, IdempotencyStore } from '../../src/platform/idempotency/idempotency.store';
import { IdempotencyClaim } from '../../src/platform/context/request-context';
import { clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { waitUntilInFeed, publishUnchecked } from '../support/events';
import { expectProblem } from '../support/problem';
import { ProbeModule } from '../support/probe.module';

const FP_A = requestFingerprint('POST', '/v1/properties', { name: 'A' });
const FP_B = requestFingerprint('POST', '/v1/properties', { name: 'B' });

async function domainErrorOf(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('IdempotencyStore (PostgreSQL)', () => {
  let t: TestApp;
  let store: IdempotencyStore;
  let db: DataSource;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startApp({}, [ProbeModule]);
    store = t.app.get(IdempotencyStore);
    db = t.app.get(DataSource);
    account = await createAccount(t);
  });
  afterAll(() => t.close());

  const newKey = () => `key-${randomUUID()}`;

  async function claimed(accountId: string, key: string, fingerprint = FP_A, status = 201): Promise<IdempotencyClaim> {
    const outcome = await store.claim(accountId, key, fingerprint);
    expect(outcome.kind).toBe('claimed');
    return { accountId, key, lockToken: (outcome as Extract<ClaimOutcome, { kind: 'claimed' }>).lockToken, responseStatus: status };
  }

  const complete = (claim: IdempotencyClaim, body: unknown) => db.transaction((manager) => store.complete(manager, claim, body));

  /** Events the requests with this Idempotency-Key wrote (it is their clientRequestId). */
  const eventsOf = async (accountId: string, key: string): Promise<number> =>
    (await db.query(`SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND client_request_id = $2`, [accountId, key]))[0].n;

  const row = async (accountId: string, key: string) =>
    (await db.query('SELECT * FROM idempotency_keys WHERE account_id = $1 AND key = $2', [accountId, key]))[0];

  it('claims a new key for the configured time to live', async () => {
    const key = newKey();
    const claim = await claimed(account.accountId, key);
    expect(claim.lockToken).toMatch(/^[0-9a-f-]{36}$/);
    const stored = await row(account.accountId, key);
    expect(stored).toMatchObject({ fingerprint: FP_A, lock_token: claim.lockToken, completed_at: null, response_body: null });
    const ttlMs = stored.expires_at.getTime() - stored.locked_at.getTime();
    expect(ttlMs).toBe(24 * 3600 * 1000);
  });

  it('answers the same request while the first is in progress with 409 idempotencyKeyInProgress', async () => {
    const key = newKey();
    await claimed(account.accountId, key);
    const error = await domainErrorOf(store.claim(account.accountId, key, FP_A));
    expect({ kind: error.kind, code: error.code }).toEqual({ kind: 'conflict', code: 'idempotencyKeyInProgress' });
  });

  it('answers another request with a key in use with 422 idempotencyKeyReused, in progress or completed', async () => {
    const key = newKey();
    const claim = await claimed(account.accountId, key);
    const during = await domainErrorOf(store.claim(account.accountId, key, FP_B));
    expect({ kind: during.kind, code: during.code }).toEqual({ kind: 'unprocessable', code: 'idempotencyKeyReused' });
    await complete(claim, { id: 'x' });
    const after = await domainErrorOf(store.claim(account.accountId, key, FP_B));
    expect(after.code).toBe('idempotencyKeyReused');
  });

  it('replays the stored status and body once completed', async () => {
    const key = newKey();
    const claim = await claimed(account.accountId, key, FP_A, 201);
    const body = { id: 'prop_1', nested: { list: [1, 'two', null], flag: false }, text: 'Ünïcödé' };
    await complete(claim, body);
    expect(await store.claim(account.accountId, key, FP_A)).toEqual({ kind: 'replay', status: 201, body });
    // Replays are repeatable.
    expect(await store.claim(account.accountId, key, FP_A)).toEqual({ kind: 'replay', status: 201, body });
  });

  it('replays a 200 and a null body as stored', async () => {
    const key = newKey();
    await complete(await claimed(account.accountId, key, FP_A, 200), null);
    expect(await store.claim(account.accountId, key, FP_A)).toEqual({ kind: 'replay', status: 200, body: null });
  });

  it('stores nothing when the use case transaction rolls back', async () => {
    const key = newKey();
    const claim = await claimed(account.accountId, key);
    await expect(
      db.transaction(async (manager) => {
        await store.complete(manager, claim, { id: 'x' });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect((await row(account.accountId, key)).completed_at).toBeNull();
    expect((await domainErrorOf(store.claim(account.accountId, key, FP_A))).code).toBe('idempotencyKeyInProgress');
  });

  it('refuses to complete with a stale lock token or twice', async () => {
    const key = newKey();
    const claim = await claimed(account.accountId, key);
    await expect(complete({ ...claim, lockToken: randomUUID() }, {})).rejects.toBeInstanceOf(ConflictError);
    await complete(claim, { first: true });
    await expect(complete(claim, { second: true })).rejects.toBeInstanceOf(ConflictError);
    expect(await store.claim(account.accountId, key, FP_A)).toEqual({ kind: 'replay', status: 201, body: { first: true } });
  });

  it('releases a failed claim so the key can be used again, even for another request', async () => {
    const key = newKey();
    const claim = await claimed(account.accountId, key);
    await store.release({ ...claim, lockToken: randomUUID() }); // someone else's token: no effect
    expect((await domainErrorOf(store.claim(account.accountId, key, FP_A))).code).toBe('idempotencyKeyInProgress');
    await store.release(claim);
    expect(await row(account.accountId, key)).toBeUndefined();
    await claimed(account.accountId, key, FP_B);
  });

  it('never releases a completed record', async () => {
    const key = newKey();
    const claim = await claimed(account.accountId, key);
    await complete(claim, { id: 'kept' });
    await store.release(claim);
    expect(await store.claim(account.accountId, key, FP_A)).toEqual({ kind: 'replay', status: 201, body: { id: 'kept' } });
  });

  it('lets an expired key be claimed afresh, for any request', async () => {
    const key = newKey();
    await complete(await claimed(account.accountId, key), { id: 'old' });
    await db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE account_id = $1 AND key = $2`, [
      account.accountId,
      key,
    ]);
    const fresh = await claimed(account.accountId, key, FP_B);
    expect(await row(account.accountId, key)).toMatchObject({
      fingerprint: FP_B,
      lock_token: fresh.lockToken,
      completed_at: null,
      response_body: null,
      response_status: null,
    });
    await complete(fresh, { id: 'new' });
    expect(await store.claim(account.accountId, key, FP_B)).toEqual({ kind: 'replay', status: 201, body: { id: 'new' } });
  });

  it('takes over a claim abandoned for over a minute; the old holder can no longer complete', async () => {
    const key = newKey();
    const old = await claimed(account.accountId, key);
    await db.query(`UPDATE idempotency_keys SET locked_at = now() - interval '59 seconds' WHERE account_id = $1 AND key = $2`, [
      account.accountId,
      key,
    ]);
    expect((await domainErrorOf(store.claim(account.accountId, key, FP_A))).code).toBe('idempotencyKeyInProgress');
    await db.query(`UPDATE idempotency_keys SET locked_at = now() - interval '61 seconds' WHERE account_id = $1 AND key = $2`, [
      account.accountId,
      key,
    ]);
    const taken = await claimed(account.accountId, key);
    expect(taken.lockToken).not.toBe(old.lockToken);
    await expect(complete(old, { by: 'old' })).rejects.toBeInstanceOf(ConflictError);
    await complete(taken, { by: 'new' });
    expect(await store.claim(account.accountId, key, FP_A)).toEqual({ kind: 'replay', status: 201, body: { by: 'new' } });
  });

  it('scopes keys per account', async () => {
    const other = await createAccount(t);
    const key = newKey();
    await complete(await claimed(account.accountId, key), { owner: 'a' });
    await complete(await claimed(other.accountId, key, FP_B), { owner: 'b' });
    expect(await store.claim(account.accountId, key, FP_A)).toEqual({ kind: 'replay', status: 201, body: { owner: 'a' } });
    expect(await store.claim(other.accountId, key, FP_B)).toEqual({ kind: 'replay', status: 201, body: { owner: 'b' } });
  });

  it('lets exactly one of many concurrent claims win', async () => {
    const key = newKey();
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => store.claim(account.accountId, key, FP_A)));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect((won[0] as PromiseFulfilledResult<ClaimOutcome>).value.kind).toBe('claimed');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(lost.map((o) => (o.reason as DomainError).code)).toEqual(Array(11).fill('idempotencyKeyInProgress'));
  });

  it('lets exactly one of many concurrent claims on an expired key win', async () => {
    const key = newKey();
    await complete(await claimed(account.accountId, key), {});
    await db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE account_id = $1 AND key = $2`, [
      account.accountId,
      key,
    ]);
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => store.claim(account.accountId, key, FP_A)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
  });

  it('deletes expired records only', async () => {
    const other = await createAccount(t);
    const live = newKey();
    const dead = newKey();
    await claimed(other.accountId, live);
    await claimed(other.accountId, dead);
    await db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 hour' WHERE account_id = $1 AND key = $2`, [
      other.accountId,
      dead,
    ]);
    expect(await store.deleteExpired()).toBeGreaterThanOrEqual(1);
    expect(await row(other.accountId, dead)).toBeUndefined();
    expect(await row(other.accountId, live)).toBeDefined();
  });

  it('completes the record in the use case transaction through UnitOfWork', async () => {
    const uow = t.app.get(UnitOfWork);
    const events = t.app.get(EventsService);
    const key = newKey();
    const claim = await claimed(account.accountId, key);
    const ctx = { accountId: account.accountId, requestId: 'r-idem', clientRequestId: key, idempotency: claim };

    await expect(
      uow.run(ctx, async (tx) => {
        await publishUnchecked(events, tx, 'test.idem', []);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await row(account.accountId, key)).completed_at).toBeNull();

    const result = await uow.run(ctx, async (tx) => {
      await publishUnchecked(events, tx, 'test.idem', [{ ok: true }]);
      return tx.respond({ ok: true });
    });
    expect(result).toEqual({ ok: true });
    expect(await store.claim(account.accountId, key, FP_A)).toEqual({ kind: 'replay', status: 201, body: { ok: true } });
  });

  describe('Tx.respond', () => {
    let uow: UnitOfWork;
    beforeAll(() => {
      uow = t.app.get(UnitOfWork);
    });

    const ctxWith = async (key = newKey()) => ({
      accountId: account.accountId,
      requestId: `r-${key}`,
      clientRequestId: key,
      idempotency: await claimed(account.accountId, key),
    });

    it('stores nothing by itself: a run without respond leaves the claim in progress', async () => {
      const ctx = await ctxWith();
      expect(await uow.run(ctx, async () => ({ returned: true }))).toEqual({ returned: true });
      expect((await row(account.accountId, ctx.clientRequestId)).completed_at).toBeNull();
    });

    it('stores the response of the transaction that calls it, whichever run that is', async () => {
      const ctx = await ctxWith();
      await uow.run(ctx, async () => ({ step: 'pre-check' }));
      await uow.run(ctx, (tx) => tx.respond({ step: 'created' }));
      await uow.run(ctx, async () => ({ step: 'after' }));
      expect(await store.claim(account.accountId, ctx.clientRequestId, FP_A)).toEqual({
        kind: 'replay',
        status: 201,
        body: { step: 'created' },
      });
    });

    it('refuses a second call in the same transaction, which rolls back', async () => {
      const ctx = await ctxWith();
      await expect(
        uow.run(ctx, async (tx) => {
          await tx.respond({ n: 1 });
          return tx.respond({ n: 2 });
        }),
      ).rejects.toThrow('Tx.respond called twice for one request');
      expect((await row(account.accountId, ctx.clientRequestId)).completed_at).toBeNull();
    });

    it('refuses a second call in a later transaction of the same request', async () => {
      const ctx = await ctxWith();
      await uow.run(ctx, (tx) => tx.respond({ n: 1 }));
      await expect(uow.run(ctx, (tx) => tx.respond({ n: 2 }))).rejects.toThrow('Tx.respond called twice for one request');
      expect(await store.claim(account.accountId, ctx.clientRequestId, FP_A)).toEqual({ kind: 'replay', status: 201, body: { n: 1 } });
    });

    it('allows a retry to respond after a transaction that responded rolled back', async () => {
      const ctx = await ctxWith();
      await expect(
        uow.run(ctx, async (tx) => {
          await tx.respond({ attempt: 1 });
          throw new Error('serialization failure');
        }),
      ).rejects.toThrow('serialization failure');
      await uow.run(ctx, (tx) => tx.respond({ attempt: 2 }));
      expect(await store.claim(account.accountId, ctx.clientRequestId, FP_A)).toEqual({
        kind: 'replay',
        status: 201,
        body: { attempt: 2 },
      });
    });

    it('returns the response and stores nothing without an Idempotency-Key, and still refuses a second call', async () => {
      const ctx = { accountId: account.accountId, requestId: 'r-plain', clientRequestId: 'req_r-plain' };
      expect(await uow.run(ctx, (tx) => tx.respond({ plain: true }))).toEqual({ plain: true });
      await expect(uow.run(ctx, (tx) => tx.respond({ plain: 2 }))).rejects.toThrow('Tx.respond called twice for one request');
    });
  });

  describe('over HTTP (@Idempotent() on a probe create route)', () => {
    let caller: TestAccount;
    beforeAll(async () => {
      caller = await createAccount(t);
    });

    it('replays the first response with Idempotent-Replayed, without running the use case again', async () => {
      const api = clientFor(t, caller);
      const key = newKey();
      const first = await api.post('/v1/test-probe/things').set('idempotency-key', key).send({ name: 'one' }).expect(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(first.body).toEqual({ id: expect.stringMatching(/^prop_/), name: 'one', clientRequestId: key });

      const again = await api.post('/v1/test-probe/things').set('idempotency-key', key).send({ name: 'one' }).expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);

      expect(await eventsOf(caller.accountId, key)).toBe(1);
      const lastId = (await db.query(`SELECT id FROM events WHERE account_id = $1 ORDER BY id DESC LIMIT 1`, [caller.accountId]))[0].id;
      await waitUntilInFeed(t, lastId);
      const feed = await api.get('/v1/events').expect(200);
      expect(feed.body.data.filter((e: { clientRequestId: string }) => e.clientRequestId === key)).toHaveLength(1);
    });

    it('answers the same key with another body with 422 idempotencyKeyReused', async () => {
      const api = clientFor(t, caller);
      const key = newKey();
      await api.post('/v1/test-probe/things').set('idempotency-key', key).send({ name: 'one' }).expect(201);
      const res = await api.post('/v1/test-probe/things').set('idempotency-key', key).send({ name: 'two' }).expect(422);
      expectProblem(res, 422, 'idempotencyKeyReused', '/v1/test-probe/things');
    });

    it('treats bodies that differ only in JSON whitespace as the same request', async () => {
      const api = clientFor(t, caller);
      const key = newKey();
      await api
        .post('/v1/test-probe/things')
        .set('idempotency-key', key)
        .set('content-type', 'application/json')
        .send('{"name":"same"}')
        .expect(201);
      const again = await api
        .post('/v1/test-probe/things')
        .set('idempotency-key', key)
        .set('content-type', 'application/json')
        .send('{ "name" : "same" }')
        .expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
    });

    it('scopes a key to the account', async () => {
      const key = newKey();
      const a = await clientFor(t, caller).post('/v1/test-probe/things').set('idempotency-key', key).send({ name: 'mine' }).expect(201);
      const b = await clientFor(t, await createAccount(t))
        .post('/v1/test-probe/things')
        .set('idempotency-key', key)
        .send({ name: 'mine' })
        .expect(201);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect(b.body.id).not.toBe(a.body.id);
    });

    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['a space', 'has space'],
    ])('answers an Idempotency-Key that is %s with 400 invalidIdempotencyKey', async (_label, key) => {
      const res = await clientFor(t, caller).post('/v1/test-probe/things').set('idempotency-key', key).send({ name: 'x' }).expect(400);
      expectProblem(res, 400, 'invalidIdempotencyKey', '/v1/test-probe/things');
    });

    it('accepts a 255-character key', async () => {
      await clientFor(t, caller)
        .post('/v1/test-probe/things')
        .set('idempotency-key', 'k'.repeat(219) + randomUUID())
        .send({ name: 'x' })
        .expect(201);
    });

    it('frees the key when the request fails validation, so the corrected request can use it', async () => {
      const api = clientFor(t, caller);
      const key = newKey();
      expectProblem(
        await api.post('/v1/test-probe/things').set('idempotency-key', key).send({ name: 'x', extra: 1 }).expect(400),
        400,
        'objectStrict',
      );
      expect(await row(caller.accountId, key)).toBeUndefined();
      await api.post('/v1/test-probe/things').set('idempotency-key', key).send({ name: 'fixed' }).expect(201);
    });

    it('frees the key when the use case fails, and stores nothing of it', async () => {
      const api = clientFor(t, caller);
      const key = newKey();
      expectProblem(
        await api.post('/v1/test-probe/things').set('idempotency-key', key).send({ name: 'conflict' }).expect(409),
        409,
        'conflict',
      );
      expectProblem(
        await api.post('/v1/test-probe/things').set('idempotency-key', key).send({ name: 'fail' }).expect(500),
        500,
        'internal',
      );
      expect(await row(caller.accountId, key)).toBeUndefined();
      expect(await eventsOf(caller.accountId, key)).toBe(0);
      const ok = await api.post('/v1/test-probe/things').set('idempotency-key', key).send({ name: 'works' }).expect(201);
      expect(ok.body.clientRequestId).toBe(key);
    });

    it('runs concurrent duplicates once: the others get 409 in progress or the replay', async () => {
      const api = clientFor(t, caller);
      const key = newKey();
      const responses = await Promise.all(
        Array.from({ length: 6 }, () => api.post('/v1/test-probe/things').set('idempotency-key', key).send({ name: 'race' })),
      );
      const created = responses.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
      expect(created).toHaveLength(1);
      for (const r of responses) {
        if (r === created[0]) continue;
        if (r.status === 201) expect(r.body).toEqual(created[0].body);
        else expectProblem(r, 409, 'idempotencyKeyInProgress');
      }
      expect(await eventsOf(caller.accountId, key)).toBe(1);
    });

    it('replays the response of a use case that runs two transactions: the one that created the thing', async () => {
      const api = clientFor(t, caller);
      const key = newKey();
      const first = await api.post('/v1/test-probe/two-step-things').set('idempotency-key', key).send({ name: 'two' }).expect(201);
      expect(first.body).toEqual({ id: expect.stringMatching(/^prop_/), name: 'two', step: 'created', clientRequestId: key });

      const again = await api.post('/v1/test-probe/two-step-things').set('idempotency-key', key).send({ name: 'two' }).expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await eventsOf(caller.accountId, key)).toBe(2); // the draft and the create, once each

      const other = await api.post('/v1/test-probe/two-step-things').set('idempotency-key', key).send({ name: 'else' }).expect(422);
      expectProblem(other, 422, 'idempotencyKeyReused', '/v1/test-probe/two-step-things');
    });

    it('answers 409 while a two-transaction use case holds the key', async () => {
      const api = clientFor(t, caller);
      const key = newKey();
      const claim = await store.claim(
        caller.accountId,
        key,
        requestFingerprint('POST', '/v1/test-probe/two-step-things', { name: 'held' }),
      );
      expect(claim.kind).toBe('claimed');
      const res = await api.post('/v1/test-probe/two-step-things').set('idempotency-key', key).send({ name: 'held' }).expect(409);
      expectProblem(res, 409, 'idempotencyKeyInProgress', '/v1/test-probe/two-step-things');
    });

    it('frees the key of a use case that succeeded without Tx.respond, and logs the mistake', async () => {
      const api = clientFor(t, caller);
      const key = newKey();
      const logged = jest.spyOn(Logger.prototype, 'error');
      try {
        const first = await api.post('/v1/test-probe/unanswered-things').set('idempotency-key', key).send({ name: 'forgot' }).expect(201);
        expect(first.body).toEqual({ id: expect.stringMatching(/^prop_/), name: 'forgot' });
        expect(await row(caller.accountId, key)).toBeUndefined();
        expect(logged).toHaveBeenCalledWith(expect.stringContaining('succeeded without Tx.respond'));

        // Nothing to replay: the retry runs the use case again instead of waiting out a 409.
        const retry = await api.post('/v1/test-probe/unanswered-things').set('idempotency-key', key).send({ name: 'forgot' }).expect(201);
        expect(retry.headers['idempotent-replayed']).toBeUndefined();
        expect(retry.body.id).not.toBe(first.body.id);
      } finally {
        logged.mockRestore();
      }
    });

    it('uses a generated clientRequestId without a key, and never stores a record', async () => {
      const res = await clientFor(t, caller)
        .post('/v1/test-probe/things')
        .set('x-request-id', 'rid-123')
        .send({ name: 'plain' })
        .expect(201);
      expect(res.body.clientRequestId).toBe('req_rid-123');
    });
  });
});
