import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ChannelModel, ConfirmChannel, connect, Message } from 'amqplib';
import { OutboundUrlPolicy } from '../../../../platform/net/outbound-url-policy';
import { BrokerUrl } from '../../rabbitmq-destination.rules';

/** Seconds between AMQP heartbeats: a broker that stops answering is noticed within about two of them. */
const HEARTBEAT_S = 10;

/**
 * A confirm channel to one exchange of a broker, reused by every attempt to that exchange, and what it
 * learnt: the messages the broker returned (mandatory, no queue bound; a return comes before its confirm),
 * and why it closed (the broker's channel error, e.g. 404 NOT_FOUND for a missing exchange).
 */
export interface ExchangeChannel {
  channel: ConfirmChannel;
  /** messageIds returned (basic.return) and not yet confirmed. */
  returned: Set<string>;
  /** The broker's reason for closing the channel (code 404: no such exchange); undefined while open or when the connection went. */
  closedBy?: { code?: number; message: string };
  closed: boolean;
}

/** A connection to one broker (url, user, password, vhost) and its channels, one per exchange. */
interface BrokerConnection {
  model: ChannelModel;
  /** The address connected to (the log's resolvedIp). */
  address: string;
  channels: Map<string, Promise<ExchangeChannel>>;
  closed: boolean;
}

/**
 * One AMQP connection per broker per worker (issue 43), opened on first use, shared by every attempt and
 * subscription to that broker, and forgotten when it closes (the next attempt opens another): no connection
 * or channel per attempt. Each exchange gets a confirm channel of its own, so a missing exchange (which
 * closes its channel) fails only the attempts to it. Before connecting, the broker's host passes the
 * outbound URL policy again, and the connection goes to the address that check resolved (pinned).
 */
@Injectable()
export class AmqpConnections implements OnApplicationShutdown {
  /** The broker's key (url, password and vhost: never logged) → its connection, opening or open. */
  private readonly brokers = new Map<string, Promise<BrokerConnection>>();

  constructor(private readonly policy: OutboundUrlPolicy) {}

  async onApplicationShutdown(): Promise<void> {
    const open = [...this.brokers.values()];
    this.brokers.clear();
    await Promise.all(open.map((opening) => opening.then((broker) => broker.model.close()).catch(() => undefined)));
  }

  /** The confirm channel to `exchange` on `broker` (password open), and the broker's address; connects when needed. */
  async channel(
    broker: BrokerUrl,
    password: string | null,
    exchange: string,
    timeoutMs: number,
  ): Promise<{ channel: ExchangeChannel; address: string }> {
    const connection = await this.connection(broker, password, timeoutMs);
    let opening = connection.channels.get(exchange);
    if (
      opening &&
      (await opening.then(
        (open) => open.closed,
        () => true,
      ))
    ) {
      // Closed since (its exchange went missing, say): the next attempt opens another.
      if (connection.channels.get(exchange) === opening) connection.channels.delete(exchange);
      opening = undefined;
    }
    if (!opening) {
      opening = this.openChannel(connection);
      connection.channels.set(exchange, opening);
      opening.catch(() => connection.channels.get(exchange) === opening && connection.channels.delete(exchange));
    }
    return { channel: await opening, address: connection.address };
  }

  private connection(broker: BrokerUrl, password: string | null, timeoutMs: number): Promise<BrokerConnection> {
    const key = JSON.stringify([broker.stored, password]);
    const known = this.brokers.get(key);
    if (known) return known;
    const opening = this.open(broker, password, timeoutMs);
    this.brokers.set(key, opening);
    const forget = () => this.brokers.get(key) === opening && this.brokers.delete(key);
    opening.then((connection) => connection.model.on('close', forget), forget);
    return opening;
  }

  private async open(broker: BrokerUrl, password: string | null, timeoutMs: number): Promise<BrokerConnection> {
    // The host obeys the receivers' rules when connecting too; the socket goes to the address checked.
    const { addresses } = await this.policy.check(broker.policyUrl, { requireHttps: true });
    const address = addresses[0].address;
    const model = await connect(
      {
        protocol: broker.tls ? 'amqps' : 'amqp',
        hostname: address,
        port: broker.port,
        username: broker.username,
        password: password ?? '',
        vhost: broker.vhost,
        heartbeat: HEARTBEAT_S,
      },
      { servername: broker.hostname, timeout: timeoutMs },
    );
    const connection: BrokerConnection = { model, address, channels: new Map(), closed: false };
    // An 'error' is followed by 'close'; without a listener it would throw.
    model.on('error', () => undefined);
    model.on('close', () => {
      connection.closed = true;
    });
    return connection;
  }

  private async openChannel(connection: BrokerConnection): Promise<ExchangeChannel> {
    const channel = await connection.model.createConfirmChannel();
    const state: ExchangeChannel = { channel, returned: new Set(), closed: false };
    channel.on('return', (message: Message) => {
      const id = message.properties.messageId as string | undefined;
      if (id) state.returned.add(id);
    });
    // The broker's channel error comes before the close that fails the unconfirmed publishes.
    channel.on('error', (error: Error & { code?: number }) => {
      state.closedBy = { code: error.code, message: error.message };
    });
    channel.on('close', () => {
      state.closed = true;
    });
    return state;
  }
}
