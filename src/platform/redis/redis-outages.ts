import { Logger } from '@nestjs/common';

/** The events of an ioredis client, or of BullMQ's client adapter, that tell an outage from a recovery. */
interface ConnectionEvents {
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
}

/** A BullMQ queue or worker: it forwards its connections' errors, and exposes its client for the rest. */
interface BullMqClientOwner {
  on(event: 'error', listener: (error: Error) => void): unknown;
  readonly client: Promise<{ on(event: 'ready', listener: () => void): unknown }>;
}

/**
 * One log line when a Redis client loses Redis and one when it is back, however many reconnects it
 * takes in between: ioredis retries about every second while Redis is down and reports each failure
 * as an error event (unheard, each is an "[ioredis] Unhandled error event" dump on stderr).
 */
export class RedisOutageLog {
  private down = false;

  constructor(
    private readonly client: string,
    private readonly logger: Logger,
  ) {}

  get isDown(): boolean {
    return this.down;
  }

  failed(error: Error): void {
    if (this.down) return;
    this.down = true;
    this.logger.warn({ redisClient: this.client, error: error.message }, 'Redis unavailable; retrying every second at most');
  }

  recovered(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.log({ redisClient: this.client }, 'Redis available again');
  }
}

/** Hears an ioredis client's outages (see RedisOutageLog). */
export function watchRedisOutages(client: ConnectionEvents, name: string, logger: Logger): RedisOutageLog {
  const log = new RedisOutageLog(name, logger);
  client.on('error', (error) => log.failed(error));
  client.on('ready', () => log.recovered());
  return log;
}

/**
 * Hears a BullMQ queue's or worker's outages. BullMQ forwards connection errors to the queue or
 * worker (only once someone listens) but not the reconnect, which its client reports.
 */
export function watchBullMqOutages(owner: BullMqClientOwner, name: string, logger: Logger): RedisOutageLog {
  const log = new RedisOutageLog(name, logger);
  owner.on('error', (error) => log.failed(error));
  owner.client.then(
    (client) => client.on('ready', () => log.recovered()),
    (error: Error) => log.failed(error),
  );
  return log;
}
