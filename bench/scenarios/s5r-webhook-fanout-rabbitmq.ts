import { connect } from 'amqplib';
import { BenchContext, Outcome, postJson } from '../support/context';
import { seedAccount, webhookEnv } from '../support/env';
import { median } from '../support/load';
import { startWorker } from '../support/processes';
import { createEvents } from './s5-webhook-fanout';

const EVENTS = 1000;
/** Ten HTTP subscriptions and ten RabbitMQ ones, on the same events. */
const SUBSCRIPTIONS = 10;
const ROUNDS = 3;
/** The machine's broker (guest/guest); the scenario's exchange and queue are its own and deleted after. */
const BROKER = 'amqp://guest:guest@127.0.0.1:5672/';

/**
 * S5R (issue 43): S5's fan-out (1,000 property.create events, ONE worker) to ten HTTP subscriptions (a
 * receiver answering 204) and, beside them on the same events, ten RabbitMQ subscriptions publishing to
 * one topic exchange of the local broker (routing key per subscription), each publish confirmed, read by
 * one consumer. Each round creates its events while no worker runs, then starts the worker and times each
 * side from its first arrival to its last: the broker's rate against the HTTP rate of the same run.
 */
export async function webhookFanoutRabbitmq(ctx: BenchContext): Promise<Outcome> {
  const { pool } = await ctx.webhookApi();
  const receiver = await ctx.receiver();
  const account = await seedAccount(ctx.db, 'fanout-rabbitmq');
  const model = await connect(BROKER);
  const channel = await model.createChannel();
  const exchange = `bench-s5r-${process.pid}-${Date.now()}`;
  await channel.assertExchange(exchange, 'topic', { durable: false });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, exchange, '#');
  const consumer = { count: 0, firstAt: 0, lastAt: 0, seen: new Set<string>() };
  await channel.consume(
    queue,
    (message) => {
      if (!message) return;
      const now = Date.now();
      if (consumer.count++ === 0) consumer.firstAt = now;
      consumer.lastAt = now;
      consumer.seen.add(`${message.properties.messageId}/${message.fields.routingKey}`);
    },
    { noAck: true },
  );

  try {
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      for (const body of [
        { url: `${receiver}/fanout-s5r?subscription=${i}`, eventFilters: ['property.create'] },
        { url: BROKER, eventFilters: ['property.create'], rabbitmq: { exchange, routingKey: `s5r.${i}` } },
      ]) {
        const created = await postJson(pool, account.apiKey, '/v1/webhooks', JSON.stringify(body));
        if (created.status !== 201) throw new Error(`creating a subscription answered ${created.status}: ${JSON.stringify(created.body)}`);
      }
    }

    const rounds: Array<{
      http: number;
      broker: number;
      posts: number;
      unique: number;
      messages: number;
      distinct: number;
      creates: number;
    }> = [];
    let created = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const path = '/fanout-s5r';
      await ctx.resetReceiver();
      Object.assign(consumer, { count: 0, firstAt: 0, lastAt: 0, seen: new Set<string>() });
      const { ok } = await createEvents(pool, account.apiKey, round * EVENTS, EVENTS);
      created += ok;
      const expected = ok * SUBSCRIPTIONS;
      const worker = ctx.track(startWorker(`worker-s5r-${round}`, webhookEnv()));
      const stats = await ctx.awaitDeliveries(path, expected);
      const deadline = Date.now() + 180_000;
      while (consumer.seen.size < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await worker.stop();
      const settled = await ctx.receiverStats(path);
      rounds.push({
        http: expected / ((stats.lastAt! - stats.firstAt!) / 1000),
        broker: expected / ((consumer.lastAt - consumer.firstAt) / 1000),
        posts: settled.posts,
        unique: settled.unique,
        messages: consumer.count,
        distinct: consumer.seen.size,
        creates: ok,
      });
    }

    // Honesty: every delivery row delivered; every POST and every message received once.
    const { rows } = await ctx.db.query<{ delivered: number; other: number }>(
      `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered, count(*) FILTER (WHERE status <> 'delivered')::int AS other
         FROM webhook_deliveries WHERE account_id = $1`,
      [account.accountId],
    );
    const problems = [
      created !== ROUNDS * EVENTS && `${ROUNDS * EVENTS - created} creates were not 201`,
      rows[0].delivered !== created * SUBSCRIPTIONS * 2 &&
        `${rows[0].delivered} delivered rows for ${created * SUBSCRIPTIONS * 2} deliveries`,
      rows[0].other !== 0 && `${rows[0].other} delivery rows not delivered`,
      ...rounds.flatMap((r, i) => [
        r.posts !== r.unique && `round ${i}: ${r.posts - r.unique} POSTs received twice`,
        r.unique !== r.creates * SUBSCRIPTIONS && `round ${i}: ${r.unique} POSTs for ${r.creates * SUBSCRIPTIONS}`,
        r.messages !== r.distinct && `round ${i}: ${r.messages - r.distinct} messages received twice`,
        r.distinct !== r.creates * SUBSCRIPTIONS && `round ${i}: ${r.distinct} messages for ${r.creates * SUBSCRIPTIONS}`,
      ]),
    ].filter(Boolean) as string[];

    const broker = median(rounds.map((r) => r.broker));
    const http = median(rounds.map((r) => r.http));
    const ratio = broker / http;
    return {
      ours: `${Math.round(broker)} RabbitMQ deliveries/s (confirmed)`,
      baseline: `${Math.round(http)} HTTP deliveries/s beside them`,
      ratio: `${ratio.toFixed(2)}x`,
      pass: problems.length === 0 && ratio >= 1,
      dishonest: problems.length ? problems.join('; ') : undefined,
      details: { rounds, broker, http, ratio, rows: rows[0] },
    };
  } finally {
    await channel.deleteExchange(exchange).catch(() => undefined);
    await model.close().catch(() => undefined);
  }
}
