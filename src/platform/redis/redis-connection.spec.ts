import Redis, { RedisOptions } from 'ioredis';
import { REDIS_RECONNECT_MAX_MS, redisReconnectDelayMs } from './redis-connection';
import { redisConnectionOptions } from './redis-factory';

/**
 * What BullMQ's RedisConnection does with connection options: its own host/port defaults under ours,
 * then `new IORedis(url, rest)` (lazyConnect here, so nothing dials out). The URL must win over the defaults.
 */
function asBullMqOpensIt(redisUrl: string): RedisOptions {
  const opts = { port: 6379, host: '127.0.0.1', ...redisConnectionOptions(redisUrl) } as RedisOptions & { url: string };
  const { url, ...rest } = opts;
  const client = new Redis(url, { ...rest, lazyConnect: true });
  const options = client.options;
  client.disconnect();
  return options;
}

describe('redisConnectionOptions', () => {
  it('keeps the maxRetriesPerRequest null BullMQ requires', () => {
    expect(redisConnectionOptions('redis://127.0.0.1:6379')).toMatchObject({ maxRetriesPerRequest: null });
    expect(asBullMqOpensIt('redis://127.0.0.1:6379').maxRetriesPerRequest).toBeNull();
  });

  it("reconnects quickly and then every second at most, over BullMQ's own strategy", () => {
    expect([1, 2, 5, 10, 11, 1000].map(redisReconnectDelayMs)).toEqual([100, 200, 500, 1000, 1000, 1000]);
    const strategy = asBullMqOpensIt('redis://127.0.0.1:6379').retryStrategy!;
    expect(strategy(50)).toBe(REDIS_RECONNECT_MAX_MS);
  });

  it('lets ioredis read host, port, user, percent-encoded password and db from the URL', () => {
    expect(asBullMqOpensIt('redis://app:p%40ss%3Aword@cache.internal:6380/3')).toMatchObject({
      host: 'cache.internal',
      port: 6380,
      username: 'app',
      password: 'p@ss:word',
      db: 3,
    });
  });

  it('reads an IPv6 host without its brackets and defaults the port and db', () => {
    expect(asBullMqOpensIt('redis://[::1]')).toMatchObject({ host: '::1', port: 6379, db: 0 });
  });

  it('turns TLS on for rediss: and off for redis:', () => {
    expect(asBullMqOpensIt('rediss://cache.example.com:6380').tls).toBeTruthy();
    expect(asBullMqOpensIt('redis://cache.example.com:6380').tls).toBeFalsy();
  });
});
