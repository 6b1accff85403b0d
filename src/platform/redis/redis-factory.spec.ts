import Redis, { Cluster } from 'ioredis';
import { bullMqConnection, createRedisClient } from './redis-factory';

/** The clients are made with lazyConnect, so nothing dials out: only the options they were given are read. */
describe('createRedisClient', () => {
  const lazy = { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true } as const;

  it('follows a Sentinel-monitored primary with the data nodes’ credentials and TLS', () => {
    const client = createRedisClient(
      {
        mode: 'sentinel',
        sentinels: [{ host: '::1', port: 26379 }],
        name: 'mymaster',
        sentinelPassword: 'sp',
        auth: { username: 'app', password: 'pw', tls: true, ca: 'CA' },
      },
      lazy,
    ) as Redis;
    expect(client).toBeInstanceOf(Redis);
    expect(client.options).toMatchObject({
      sentinels: [{ host: '::1', port: 26379 }],
      name: 'mymaster',
      sentinelPassword: 'sp',
      username: 'app',
      password: 'pw',
      tls: { ca: 'CA' },
      enableTLSForSentinelMode: true,
      failoverDetector: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    });
    client.disconnect();
  });

  it('makes a Cluster client whose nodes get the credentials and the per-command behaviour', () => {
    const client = createRedisClient(
      { mode: 'cluster', nodes: [{ host: '10.0.0.1', port: 7000 }], auth: { password: 'pw', tls: false } },
      { ...lazy, commandTimeout: 500 },
    ) as Cluster;
    expect(client).toBeInstanceOf(Cluster);
    expect(client.options).toMatchObject({
      enableOfflineQueue: false,
      redisOptions: { password: 'pw', maxRetriesPerRequest: 0, commandTimeout: 500 },
    });
    expect(client.options.redisOptions?.tls).toBeUndefined();
    expect(client.options.clusterRetryStrategy?.(50)).toBe(1000);
    client.disconnect();
  });
});

describe('bullMqConnection', () => {
  it('gives BullMQ options it opens itself for one server and for Sentinel', () => {
    expect(bullMqConnection({ mode: 'single', url: 'redis://a:6379' })).toEqual({
      connection: expect.objectContaining({ url: 'redis://a:6379', maxRetriesPerRequest: null }),
    });
    const sentinel = bullMqConnection({ mode: 'sentinel', sentinels: [{ host: 'a', port: 26379 }], name: 'm', auth: { tls: false } });
    expect(sentinel.owned).toBeUndefined();
    expect(sentinel.connection).toMatchObject({ name: 'm', maxRetriesPerRequest: null });
  });

  it('gives BullMQ a Cluster client, handed back as owned (BullMQ leaves a given client open)', () => {
    const { connection, owned } = bullMqConnection({ mode: 'cluster', nodes: [{ host: '127.0.0.1', port: 1 }], auth: { tls: false } });
    expect(owned).toBeInstanceOf(Cluster);
    expect(connection).toBe(owned);
    owned!.disconnect();
  });
});
