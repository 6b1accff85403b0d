import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Public } from '../../platform/http/public.decorator';
import { REDIS } from '../../platform/redis/redis.module';

const CHECK_TIMEOUT_MS = 1000;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}

/** GET /v1/health: no key needed; 200 when PostgreSQL and Redis answer, 503 otherwise (for load balancers). */
@Controller('v1/health')
export class HealthController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  @Public()
  @Get()
  async health(@Res({ passthrough: true }) res: Response) {
    const [database, redis] = await Promise.all([
      within(this.dataSource.query('SELECT 1'), CHECK_TIMEOUT_MS).then(
        () => 'up',
        () => 'down',
      ),
      within(this.redis.ping(), CHECK_TIMEOUT_MS).then(
        () => 'up',
        () => 'down',
      ),
    ]);
    const ok = database === 'up' && redis === 'up';
    res.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'unavailable', version: this.config.version, checks: { database, redis } };
  }
}
