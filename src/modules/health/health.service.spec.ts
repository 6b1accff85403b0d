import Redis from 'ioredis';
import { Sql } from '../../platform/database/sql';
import { HealthService } from './health.service';

const never = () => new Promise<never>(() => undefined);

function serviceWith(query: () => Promise<unknown>, ping: () => Promise<unknown>): HealthService {
  return new HealthService({ version: '1.2.3' }, { prepared: query } as unknown as Sql, { ping } as unknown as Redis);
}

describe('HealthService', () => {
  it('is ok when PostgreSQL and Redis both answer', async () => {
    const service = serviceWith(
      () => Promise.resolve([{ '?column?': 1 }]),
      () => Promise.resolve('PONG'),
    );
    expect(await service.report()).toEqual({ status: 'ok', version: '1.2.3', checks: { database: 'up', redis: 'up' } });
  });

  it('is unavailable naming the dependency whose check failed', async () => {
    const service = serviceWith(
      () => Promise.reject(new Error('connection refused')),
      () => Promise.resolve('PONG'),
    );
    expect(await service.report()).toEqual({ status: 'unavailable', version: '1.2.3', checks: { database: 'down', redis: 'up' } });
  });

  it('counts a dependency that never answers as down instead of waiting for it', async () => {
    const service = serviceWith(() => Promise.resolve([]), never);
    expect(await service.report()).toEqual({ status: 'unavailable', version: '1.2.3', checks: { database: 'up', redis: 'down' } });
  });
});
