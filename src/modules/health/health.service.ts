import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { untilAborted } from '../../platform/async/until-aborted';
import { REDIS } from '../../platform/redis/redis.module';

export type DependencyState = 'up' | 'down';

export interface HealthReport {
  status: 'ok' | 'unavailable';
  version: string;
  checks: { database: DependencyState; redis: DependencyState };
}

/** A load balancer polls this; a dependency that has not answered by then counts as down. */
export const CHECK_TIMEOUT_MS = 1000;

/** Asks PostgreSQL and Redis, side by side, whether they answer. */
@Injectable()
export class HealthService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'version'>,
    private readonly dataSource: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async report(): Promise<HealthReport> {
    const [database, redis] = await Promise.all([stateOf(this.dataSource.query('SELECT 1')), stateOf(this.redis.ping())]);
    const ok = database === 'up' && redis === 'up';
    return { status: ok ? 'ok' : 'unavailable', version: this.config.version, checks: { database, redis } };
  }
}

/** While Redis is unreachable a PING waits in ioredis' offline queue, so only a deadline ends it. */
function stateOf(probe: Promise<unknown>): Promise<DependencyState> {
  return untilAborted(probe, AbortSignal.timeout(CHECK_TIMEOUT_MS)).then(
    () => 'up',
    () => 'down',
  );
}
