import { ChannelModel, connect, ConsumeMessage } from 'amqplib';
import { randomBytes } from 'node:crypto';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { standardWebhooksSecret } from '../../src/modules/webhooks/subscriptions/webhook-subscription.rules';

/**
 * The machine's RabbitMQ (127.0.0.1:5672, guest/guest), never stopped or reconfigured: each test uses
 * exchanges and queues of its own, uniquely named on the default vhost (the management API, which would
 * make vhosts, is not enabled everywhere), and deletes them after.
 */
export const RABBITMQ = { host: '127.0.0.1', port: 5672, user: 'guest', password: 'guest' };

/** The subscription url of the local broker (through `port`, a proxy's, when given). */
export function brokerUrl(port = RABBITMQ.port): string {
  return `amqp://${RABBITMQ.user}:${RABBITMQ.password}@${RABBITMQ.host}:${port}/`;
}

export interface ReceivedMessage {
  body: string;
  routingKey: string;
  exchange: string;
  properties: ConsumeMessage['properties'];
  headers: Record<string, unknown>;
}

/** A test's own exchanges and queues on the local broker, and a consumer per queue; `close()` deletes them. */
export class BrokerFixture {
  private readonly exchanges: string[] = [];
  private readonly queues: string[] = [];

  private constructor(
    private readonly model: ChannelModel,
    readonly prefix: string,
  ) {}

  static async open(name: string): Promise<BrokerFixture> {
    const model = await connect(brokerUrl());
    return new BrokerFixture(model, `pop-test-${process.env.TEST_RUN_ID ?? 'local'}-${name}-${randomBytes(4).toString('hex')}`);
  }

  /** A unique exchange name (not declared). */
  name(part: string): string {
    return `${this.prefix}.${part}`;
  }

  async exchange(part: string, type: 'topic' | 'direct' | 'fanout' = 'topic'): Promise<string> {
    const exchange = this.name(part);
    const channel = await this.model.createChannel();
    await channel.assertExchange(exchange, type, { durable: false, autoDelete: false });
    await channel.close();
    this.exchanges.push(exchange);
    return exchange;
  }

  /** A queue bound to `exchange` with `pattern` (none for the default exchange), consumed into the returned list. */
  async queue(part: string, exchange: string | null, pattern = '#'): Promise<{ name: string; messages: ReceivedMessage[] }> {
    const name = this.name(part);
    const channel = await this.model.createChannel();
    await channel.assertQueue(name, { durable: false, autoDelete: false });
    if (exchange !== null) await channel.bindQueue(name, exchange, pattern);
    this.queues.push(name);
    const messages: ReceivedMessage[] = [];
    await channel.consume(
      name,
      (message) => {
        if (!message) return;
        messages.push({
          body: message.content.toString('utf8'),
          routingKey: message.fields.routingKey,
          exchange: message.fields.exchange,
          properties: message.properties,
          headers: message.properties.headers ?? {},
        });
      },
      { noAck: true },
    );
    return { name, messages };
  }

  async close(): Promise<void> {
    const channel = await this.model.createChannel();
    for (const queue of this.queues) await channel.deleteQueue(queue).catch(() => undefined);
    for (const exchange of this.exchanges) await channel.deleteExchange(exchange).catch(() => undefined);
    await this.model.close().catch(() => undefined);
  }
}

/** Verifies a message with the standardwebhooks library and the subscription's secret, as a consumer would. */
export function verifyMessage(message: ReceivedMessage, signingSecret: string): unknown {
  const headers: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) headers[name] = String(message.headers[name]);
  return new Webhook(standardWebhooksSecret(signingSecret)).verify(message.body, headers);
}

/**
 * A TCP proxy to the local broker on a loopback port of its own: `cut()` stops it (every connection through
 * it drops and new ones are refused: the broker gone, as the engine sees it, without stopping the shared
 * one), `restore()` listens again on the same port.
 */
export class BrokerProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(readonly port: number) {}

  static async start(): Promise<BrokerProxy> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const proxy = new BrokerProxy(port);
    await proxy.restore();
    return proxy;
  }

  /** Connections made through the proxy so far. */
  connections = 0;

  async restore(): Promise<void> {
    const server = createServer((client) => {
      this.connections++;
      const upstream = new Socket();
      upstream.connect(RABBITMQ.port, RABBITMQ.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
