import { BrokerPasswordUpkeep } from '../../src/modules/webhooks/engine/maintenance/broker-password-upkeep';
import { randomBytes } from 'node:crypto';
import { DEVELOPMENT_KEYRING } from '../../src/config/keyring';
import { brokerPasswordContext } from '../../src/modules/webhooks/rabbitmq-destination.rules';
import { openSecret } from '../../src/platform/secrets/secret-box.rules';
import { consoleSignIn } from '../support/console';
import { pageText } from '../support/console-pages';
import { feedOrder, publishSeries } from '../support/ordered-webhooks';
import { expectProblem } from '../support/problem';
import { BrokerFixture, BrokerProxy, brokerUrl, RABBITMQ, ReceivedMessage, verifyMessage } from '../support/rabbitmq';
import { waitUntil } from '../support/wait';
import { useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';
import { deliveriesOf, publishEvent, waitForFinalDeliveries } from '../support/webhooks';

/**
 * RabbitMQ destinations (issue 43): a subscription whose url is amqp(s) publishes each delivery to an
 * exchange of the local broker, confirmed, with every promise of the HTTP path. Each test has exchanges
 * and queues of its own (support/rabbitmq.ts), deleted after; the shared broker is never stopped: a
 * broker "gone" is a proxy the test cuts.
 */
const ENV = webhookTestEnv('rabbitmq', { WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '2000' });

describe('RabbitMQ destinations', () => {
  const engine = useWebhookEngine(ENV);
  let broker: BrokerFixture;
  beforeAll(async () => {
    broker = await BrokerFixture.open('rabbitmq');
  });
  afterAll(() => broker?.close());

  async function subscribeBroker(rabbitmq: Record<string, unknown>, extra: Record<string, unknown> = {}, url = brokerUrl()) {
    const res = await engine
      .started()
      .api.post('/v1/webhooks')
      .send({ url, eventFilters: ['*'], rabbitmq, ...extra })
      .expect(201);
    return res.body as { id: string; signingSecret: string; url: string };
  }

  it('takes a broker url with rabbitmq, never shows its password, and refuses options that do not fit the url', async () => {
    const { api } = engine.started();
    const exchange = broker.name('validation');
    const url = `amqp://guest:s3cret-pw@127.0.0.1:5672/`;
    const created = await api
      .post('/v1/webhooks')
      .send({ url, eventFilters: ['booking.*'], rabbitmq: { exchange } })
      .expect(201);
    expect(created.body).toMatchObject({ url: 'amqp://guest@127.0.0.1:5672', rabbitmq: { exchange } });
    const reads = [
      created.body,
      (await api.get('/v1/webhooks').expect(200)).body,
      (
        await api
          .patch(`/v1/webhooks/${created.body.id}`)
          .send({ rabbitmq: { exchange, routingKey: 'k' } })
          .expect(200)
      ).body,
    ];
    for (const read of reads) expect(JSON.stringify(read)).not.toContain('s3cret-pw');
    expect(reads[2].rabbitmq).toEqual({ exchange, routingKey: 'k' });

    // Another routing key on the same broker and exchange is another subscription; the same ones are a 409.
    await api
      .post('/v1/webhooks')
      .send({ url, eventFilters: ['*'], rabbitmq: { exchange } })
      .expect(201);
    const duplicate = await api.post('/v1/webhooks').send({ url, eventFilters: ['*'], rabbitmq: { exchange, routingKey: 'k' } });
    expect(expectProblem(duplicate, 409, 'conflict').existingId).toBe(created.body.id);

    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: 'https://example.com/hook', rabbitmq: { exchange } }, '#/rabbitmq'],
      [{ url }, '#/rabbitmq'],
      [{ url, rabbitmq: { exchange: '' } }, '#/rabbitmq/routingKey'],
      [{ url, rabbitmq: {} }, '#/rabbitmq/exchange'],
      [{ url, rabbitmq: { exchange: 5 } }, '#/rabbitmq/exchange'],
      [{ url, rabbitmq: { exchange, routingKey: null } }, '#/rabbitmq/routingKey'],
      [{ url, rabbitmq: 'x' }, '#/rabbitmq'],
      // Receiver authentication is an HTTP receiver's: a broker authenticates with its url's user and password.
      [{ url, rabbitmq: { exchange }, headers: { 'X-Api-Key': 'k' } }, '#/headers'],
      [{ url, rabbitmq: { exchange }, oauth2: { tokenUrl: 'http://127.0.0.1:1/token', clientId: 'c', clientSecret: 's' } }, '#/oauth2'],
    ];
    for (const [body, pointer] of cases) {
      const res = await api.post('/v1/webhooks').send({ eventFilters: ['*'], ...body });
      const problem = expectProblem(res, 400, 'validationFailed');
      expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer })]));
    }
    // A PATCH to an https url must drop rabbitmq; a PATCH to a broker url must bring it.
    const toHttps = await api.patch(`/v1/webhooks/${created.body.id}`).send({ url: 'https://example.com/hook' });
    expect(expectProblem(toHttps, 400, 'validationFailed').errors).toEqual([expect.objectContaining({ pointer: '#/rabbitmq' })]);
    const withHeaders = await api.patch(`/v1/webhooks/${created.body.id}`).send({ headers: { 'X-Api-Key': 'k' } });
    expect(expectProblem(withHeaders, 400, 'validationFailed').errors).toEqual([expect.objectContaining({ pointer: '#/headers' })]);
    const bad = await api
      .post('/v1/webhooks')
      .send({ url: 'amqp://guest@127.0.0.1:5672/a/b', eventFilters: ['*'], rabbitmq: { exchange } });
    expectProblem(bad, 400, 'invalidWebhookUrl');
  });

  it('answers malformed rabbitmq fields and broker urls with a problem document, never a 500 (create and PATCH)', async () => {
    const { api } = engine.started();
    const exchange = broker.name('malformed');
    const url = brokerUrl();
    const target = await subscribeBroker({ exchange: broker.name('malformed-target') });
    const bad: unknown[] = [null, true, 0, -1, 1.5, '', 'x'.repeat(10_001), '\u0000', '\ud800', [], {}, [[[[[]]]]]];
    const bodies: Array<Record<string, unknown>> = [];
    for (const value of bad) {
      bodies.push({ url, rabbitmq: value }, { url, rabbitmq: { exchange: value } }, { url, rabbitmq: { exchange, routingKey: value } });
      bodies.push({ url, rabbitmq: { exchange, extra: value } }, { url: value, rabbitmq: { exchange } });
    }
    for (const brokerish of [
      'amqp://',
      'amqps://@/',
      'amqp://h:99999/',
      'amqp://u:p@127.0.0.1:5672/a/b',
      'amqp://127.0.0.1/%zz',
      'amqps://u:%@x.invalid/',
    ]) {
      bodies.push({ url: brokerish, rabbitmq: { exchange } });
    }
    for (const body of bodies) {
      for (const res of [
        await api.post('/v1/webhooks').send({ eventFilters: ['*'], ...body }),
        await api.patch(`/v1/webhooks/${target.id}`).send(body),
      ]) {
        // An empty routing key on a named exchange is a valid AMQP key (a fanout exchange ignores it).
        const valid = (body.rabbitmq as { routingKey?: unknown } | undefined)?.routingKey === '';
        if (valid)
          expect([200, 201, 409]).toContain(res.status); // 409: the POST before took that key
        else {
          expect([res.status, body]).toEqual([400, body]);
          expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        }
      }
    }
  });

  it('publishes each event once, confirmed, as the bytes an HTTP receiver gets, verifiable with standardwebhooks', async () => {
    const { t, api, account } = engine.started();
    const exchange = await broker.exchange('events');
    const queue = await broker.queue('events', exchange, 'rabbit.#');
    const sub = await subscribeBroker({ exchange }, { eventFilters: ['rabbit.*'] });
    for (let n = 0; n < 5; n++) await publishEvent(t, account.accountId, 'rabbit.made', [{ n }]);
    const rows = await waitForFinalDeliveries(api, sub.id, 5);
    expect(rows.every((row) => row.status === 'delivered')).toBe(true);
    await waitUntil(async () => queue.messages.length >= 5, 5_000, 'five messages');

    expect(queue.messages).toHaveLength(5);
    expect(new Set(queue.messages.map((m) => m.properties.messageId)).size).toBe(5);
    for (const message of queue.messages) {
      expect(verifyMessage(message, sub.signingSecret)).toMatchObject({ eventName: 'rabbit.made', targetAccountId: account.accountId });
      expect(message.routingKey).toBe('rabbit.made');
      expect(message.properties).toMatchObject({
        contentType: 'application/json',
        deliveryMode: 2,
        type: 'rabbit.made',
        messageId: message.headers['webhook-id'],
        timestamp: Number(message.headers['webhook-timestamp']),
      });
      expect(rows.map((row) => row.id)).toContain(message.properties.messageId);
    }

    // A test delivery goes the same way: its event name is its type and its routing key.
    const test = await api.post(`/v1/webhooks/${sub.id}/test`).send({ eventName: 'rabbit.tested' }).expect(202);
    await waitUntil(async () => queue.messages.find((m) => m.properties.messageId === test.body.deliveryId), 5_000, 'the test message');
    const tested = queue.messages.find((m) => m.properties.messageId === test.body.deliveryId)!;
    expect(tested).toMatchObject({ routingKey: 'rabbit.tested', properties: expect.objectContaining({ type: 'rabbit.tested' }) });
    expect(JSON.parse(tested.body)).toMatchObject({ test: true, eventName: 'rabbit.tested' });
  });

  it('delivers an ordered subscription in the feed order, through the default exchange and a fixed routing key', async () => {
    const { t, api, account } = engine.started();
    const queue = await broker.queue('ordered', null);
    const sub = await subscribeBroker({ exchange: '', routingKey: queue.name }, { eventFilters: ['rabbit.ordered'], ordered: true });
    await publishSeries(t, account.accountId, 'rabbit.ordered', 8);
    await waitForFinalDeliveries(api, sub.id, 8);
    await waitUntil(async () => queue.messages.length >= 8, 5_000, 'eight messages');
    const feed = await feedOrder(api, 'rabbit.ordered', 8);
    expect(queue.messages.map(numberIn)).toEqual(feed);
  });

  it('fails an attempt while no queue is bound (unroutable) or the exchange is missing, then delivers once they are there', async () => {
    const { t, api, account } = engine.started();
    const exchange = await broker.exchange('unbound');
    const sub = await subscribeBroker({ exchange }, { eventFilters: ['rabbit.unbound'], maxRetries: 10 });
    const missing = broker.name('missing');
    const subMissing = await subscribeBroker({ exchange: missing }, { eventFilters: ['rabbit.unbound'], maxRetries: 10 });
    await publishEvent(t, account.accountId, 'rabbit.unbound', [{ n: 1 }]);

    const failedWith = async (id: string, errorClass: string) =>
      waitUntil(
        async () => (await deliveriesOf(api, id)).find((row) => row.attempts.some((a: any) => a.errorClass === errorClass)),
        10_000,
        errorClass,
      );
    const unroutable = await failedWith(sub.id, 'unroutable');
    expect(unroutable.attempts[0]).toMatchObject({ responseCode: null, errorMessage: expect.stringContaining('unroutable') });
    const notFound = await failedWith(subMissing.id, 'exchangeNotFound');
    expect(notFound.attempts[0].errorMessage).toContain('not found');

    const queue = await broker.queue('unbound', exchange);
    await broker.exchange('missing');
    const queueMissing = await broker.queue('missing', missing);
    const [row] = await waitForFinalDeliveries(api, sub.id, 1, 20_000);
    const [rowMissing] = await waitForFinalDeliveries(api, subMissing.id, 1, 20_000);
    expect([row.status, rowMissing.status]).toEqual(['delivered', 'delivered']);
    await waitUntil(async () => queue.messages.length === 1 && queueMissing.messages.length === 1, 5_000, 'both messages');
    expect(row.attempts.at(-1)).toMatchObject({ errorClass: null, errorMessage: null });
  });

  it('loses nothing when the broker goes away mid-stream: the attempts fail (connectionFailed) and are retried', async () => {
    const { t, api, account } = engine.started();
    const proxy = await BrokerProxy.start();
    const exchange = await broker.exchange('cut');
    const queue = await broker.queue('cut', exchange);
    const sub = await subscribeBroker({ exchange }, { eventFilters: ['rabbit.cut'], maxRetries: 10 }, brokerUrl(proxy.port));
    try {
      await publishSeries(t, account.accountId, 'rabbit.cut', 5);
      await waitUntil(async () => queue.messages.length >= 5, 10_000, 'the first five');
      await proxy.cut();
      await publishSeries(t, account.accountId, 'rabbit.cut', 10, 5);
      await waitUntil(
        async () => (await deliveriesOf(api, sub.id)).some((row) => row.attempts.some((a: any) => a.errorClass === 'connectionFailed')),
        10_000,
        'a connectionFailed attempt',
      );
      await proxy.restore();
      const rows = await waitForFinalDeliveries(api, sub.id, 15, 30_000);
      expect(rows.filter((row) => row.status !== 'delivered')).toEqual([]);
      // Every event arrived (a publish cut before its confirm may arrive twice: at least once, never lost).
      await waitUntil(async () => new Set(queue.messages.map(numberIn)).size === 15, 5_000, 'all fifteen');
      expect(proxy.connections).toBeGreaterThanOrEqual(2);
    } finally {
      await proxy.cut();
    }
  });

  it('adds, edits and shows a broker destination in the console, each attempt as published, never its password', async () => {
    const { t, account } = engine.started();
    const session = await consoleSignIn(t, account.accountId);
    const exchange = await broker.exchange('console');
    const queue = await broker.queue('console', exchange);
    const url = `amqp://guest:guest@127.0.0.1:${RABBITMQ.port}/`;
    const added = await session
      .post('/console/webhooks', {
        url,
        eventFilters: 'property.create',
        maxRetries: '3',
        rabbitmqExchange: exchange,
        rabbitmqRoutingKey: '',
      })
      .expect((res) => expect([res.status, res.status === 303 ? '' : pageText(res.text).slice(0, 2000)]).toEqual([303, '']));
    const id = /^\/console\/webhooks\/(sub_[0-9A-Z]{26})\//.exec(added.headers.location)![1];
    // An amqp url without an exchange field is refused on the form, naming the routing key it then needs.
    const refused = await session.post('/console/webhooks', { url, eventFilters: '*', rabbitmqExchange: '', rabbitmqRoutingKey: '' });
    expect(refused.status).toBe(400);
    expect(pageText(refused.text)).toContain('rabbitmq.routingKey is required');

    // Saving the settings as shown (the url without its password) keeps the password: the next delivery still goes.
    const settings = (await session.get(`/console/webhooks/${id}/settings`).expect(200)).text;
    expect(settings).not.toContain('guest:guest');
    await session
      .post(`/console/webhooks/${id}`, {
        url: 'amqp://guest@127.0.0.1:5672',
        eventFilters: 'property.create',
        rabbitmqExchange: exchange,
        rabbitmqRoutingKey: 'console.key',
      })
      .expect(303);
    await publishEvent(t, account.accountId, 'property.create', [{ n: 1 }]);
    await waitUntil(async () => queue.messages.length === 1, 10_000, 'the message');
    expect(queue.messages[0].routingKey).toBe('console.key');

    const [row] = await waitForFinalDeliveries(engine.started().api, id, 1);
    const page = (await session.get(`/console/webhooks/${id}/deliveries/${row.id}`).expect(200)).text;
    const text = pageText(page);
    expect(text).toContain('Message as published');
    expect(text).toContain(exchange);
    expect(text).toContain('console.key');
    expect(page).toContain(`messageId: ${row.id}`);
    expect(page).toContain('type: property.create');
    expect(page).toContain('webhook-signature: v1,not kept');
    expect(page).not.toContain('guest:guest');
  });

  it('keeps the password out of every attempt of the delivery log', async () => {
    const { t, api, account } = engine.started();
    const sub = await subscribeBroker(
      { exchange: broker.name('refused') },
      { eventFilters: ['rabbit.refused'], maxRetries: 0 },
      `amqp://guest:wrong-pw-123@${RABBITMQ.host}:${RABBITMQ.port}/`,
    );
    await publishEvent(t, account.accountId, 'rabbit.refused', [{ n: 1 }]);
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row.attempts[0]).toMatchObject({ errorClass: 'connectionFailed' });
    expect(JSON.stringify(row)).not.toContain('wrong-pw-123');
  });

  // Last: the passwords it reseals open only with the new key, which the file's worker does not have.
  it('seals the broker passwords again with a new key (the upkeep of a key rotation), bound to their subscription', async () => {
    const { db } = engine.started();
    const sub = await subscribeBroker({ exchange: broker.name('reseal') }, { eventFilters: ['rabbit.reseal'] });
    const stored = async () =>
      ((await db.query(`SELECT broker_password FROM webhook_subscriptions WHERE id = $1`, [sub.id]))[0] as { broker_password: string })
        .broker_password;
    expect(await stored()).toMatch(/^v1\.dev\./);
    const k2 = randomBytes(32);
    const rotating = await engine.worker({
      SECRETS_ENCRYPTION_KEY: `k2:${k2.toString('base64')},dev:${DEVELOPMENT_KEYRING[0].key.toString('base64')}`,
    });
    const result = await rotating.ctx.get(BrokerPasswordUpkeep).run();
    await rotating.close();
    expect(result.resealed).toBeGreaterThanOrEqual(1);
    expect(result.unopenable).toBe(0);
    const resealed = await stored();
    expect(resealed).toMatch(/^v1\.k2\./);
    expect(openSecret(resealed, [{ id: 'k2', key: k2 }], brokerPasswordContext(sub.id))).toBe(RABBITMQ.password);
  });
});

function numberIn(message: ReceivedMessage): number {
  return JSON.parse(message.body).results[0].n;
}
