import { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { watchBullMqOutages, watchRedisOutages } from './redis-outages';

function logger() {
  const lines: Array<[string, unknown, string]> = [];
  const log = {
    warn: (fields: unknown, message: string) => lines.push(['warn', fields, message]),
    log: (fields: unknown, message: string) => lines.push(['info', fields, message]),
  };
  return { logger: log as unknown as Logger, lines };
}

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });

describe('watchRedisOutages', () => {
  it('logs one line per outage however many reconnects fail, and one when Redis is back', () => {
    const { logger: log, lines } = logger();
    const client = new EventEmitter();
    const outage = watchRedisOutages(client, 'shared', log);
    client.emit('ready');
    expect(lines).toEqual([]);
    for (let i = 0; i < 30; i++) client.emit('error', refused());
    expect(outage.isDown).toBe(true);
    client.emit('ready');
    client.emit('error', refused());
    client.emit('error', refused());
    client.emit('ready');
    expect(lines).toEqual([
      ['warn', { redisClient: 'shared', error: 'connect ECONNREFUSED 127.0.0.1:6379' }, expect.stringMatching(/^Redis unavailable/)],
      ['info', { redisClient: 'shared' }, 'Redis available again'],
      ['warn', { redisClient: 'shared', error: 'connect ECONNREFUSED 127.0.0.1:6379' }, expect.stringMatching(/^Redis unavailable/)],
      ['info', { redisClient: 'shared' }, 'Redis available again'],
    ]);
    expect(outage.isDown).toBe(false);
  });

  it('listens, so an error never goes unheard (an EventEmitter would throw it)', () => {
    const client = new EventEmitter();
    watchRedisOutages(client, 'shared', logger().logger);
    expect(() => client.emit('error', refused())).not.toThrow();
  });
});

describe('watchBullMqOutages', () => {
  it('takes errors from the queue or worker and the recovery from its client', async () => {
    const { logger: log, lines } = logger();
    const owner = new EventEmitter();
    const client = new EventEmitter();
    const outage = watchBullMqOutages(Object.assign(owner, { client: Promise.resolve(client) }), 'webhook-delivery worker', log);
    await Promise.resolve();
    owner.emit('error', refused());
    owner.emit('error', refused());
    expect(outage.isDown).toBe(true);
    client.emit('ready');
    expect(lines.map(([level, fields]) => [level, fields])).toEqual([
      ['warn', { redisClient: 'webhook-delivery worker', error: 'connect ECONNREFUSED 127.0.0.1:6379' }],
      ['info', { redisClient: 'webhook-delivery worker' }],
    ]);
  });
});
