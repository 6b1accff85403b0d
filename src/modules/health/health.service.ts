import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { untilAborted } from '../../platform/async/until-aborted';
import { Sql } from '../../platform/database/sql';
import { enumOf, everyMember, shapeOf, str } from '../../platform/openapi/json-schema';
import { readShape } from '../../platform/openapi/read-shape';
import { REDIS } from '../../platform/redis/redis.module';
import type { RedisClient } from '../../platform/redis/redis-factory';

export type DependencyState = 'up' | 'down';

export interface HealthReport {
  status: 'ok' | 'unavailable';
  version: string;
  checks: { database: DependencyState; redis: DependencyState };
}

const DEPENDENCY_STATE = enumOf(everyMember<DependencyState>({ up: true, down: true }));

export const HEALTH_SHAPE = readShape<HealthReport>(
  'Health',
  'Service status (503 with status unavailable when PostgreSQL or Redis does not answer).',
  {
    status: enumOf(everyMember<HealthReport['status']>({ ok: true, unavailable: true })),
    version: str,
    checks: shapeOf<HealthReport['checks']>('Each dependency as the service last saw it.', {
      database: DEPENDENCY_STATE,
      redis: DEPENDENCY_STATE,
    }),
  },
);

/** A load balancer polls this; a dependency that has not answered by then counts as down. */
export const CHECK_TIMEOUT_MS = 1000;

/** Asks PostgreSQL and Redis, side by side, whether they answer. */
@Injectable()
export class HealthService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'version'>,
    private readonly sql: Sql,
    @Inject(REDIS) private readonly redis: RedisClient,
  ) {}

  async report(): Promise<HealthReport> {
    // One deadline for both checks, cleared once they answer: a load balancer polls this route
    // often, and AbortSignal.timeout would leave a timer (and a DOMException) behind per call.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error('health check timed out')), CHECK_TIMEOUT_MS);
    try {
      const [database, redis] = await Promise.all([
        stateOf(this.sql.prepared('health_select_1', 'SELECT 1', []), deadline.signal),
        stateOf(this.redis.ping(), deadline.signal),
      ]);
      const ok = database === 'up' && redis === 'up';
      return { status: ok ? 'ok' : 'unavailable', version: this.config.version, checks: { database, redis } };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** While Redis is unreachable a PING waits in ioredis' offline queue, so only a deadline ends it. */
function stateOf(probe: Promise<unknown>, deadline: AbortSignal): Promise<DependencyState> {
  return untilAborted(probe, deadline).then(
    () => 'up',
    () => 'down',
  );
}
