import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { PACE_LUA, paceIntervalMs, reservedStarts } from './pacer.rules';
import { REDIS } from './redis.module';
import type { RedisClient } from './redis-factory';

interface PaceClient {
  pace(key: string, intervalMs: number, wanted: number, horizonMs: number): Promise<[number, string]>;
}

/**
 * Rate caps shared by every process (webhook pacing per endpoint): `reserve` books start times in Redis
 * one interval apart and says how long to wait for each. Uses the process's shared Redis connection, so
 * while Redis is down a reservation waits for it (callers wait; nothing is dropped).
 */
@Injectable()
export class Pacer {
  private readonly client: PaceClient;
  private readonly prefix: string;

  constructor(@Inject(REDIS) redis: RedisClient, @Inject(APP_CONFIG) config: AppConfig) {
    redis.defineCommand('pace', { numberOfKeys: 1, lua: PACE_LUA });
    this.client = redis as unknown as PaceClient;
    this.prefix = `${config.redisPrefix}:pace:`;
  }

  /**
   * Reserves up to `wanted` starts for `key` at `ratePerSecond`, none later than `horizonMs` from now:
   * the waits (ms from now) of those granted, in order; empty when the next free start is further away
   * than the horizon (ask again later).
   */
  async reserve(key: string, ratePerSecond: number, wanted: number, horizonMs: number): Promise<number[]> {
    const intervalMs = paceIntervalMs(ratePerSecond);
    const [granted, firstWaitUs] = await this.client.pace(`${this.prefix}${key}`, intervalMs, wanted, horizonMs);
    return reservedStarts(Number(granted), Number(firstWaitUs) / 1000, intervalMs);
  }
}
