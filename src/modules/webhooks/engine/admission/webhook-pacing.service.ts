import { Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pacer } from '../../../../platform/redis/pacer';
import { DeliveryRow } from '../../webhook-delivery.row';

/** How far ahead an attempt may reserve its start: a single attempt's job waits that long at most (else it is parked). */
const HORIZON_MS = 1_000;
/** After a failed reservation (Redis unreachable) the attempts wait this long and ask again: they wait, never fail. */
const RETRY_MS = 1_000;

/**
 * Pacing per endpoint (issue 23, an extension): a subscription with `rateLimitPerSecond` gets its
 * attempts' start times from the shared Pacer (Redis), so every worker together starts at most that
 * many per second; unpaced subscriptions never call it. Attempts wait for their turn; none fails for it.
 */
@Injectable()
export class WebhookPacing {
  private readonly logger = new Logger(WebhookPacing.name);

  constructor(private readonly pacer: Pacer) {}

  /** One attempt (a queue job): waits for its start when there is one within the horizon; false when not (park the job). */
  async startOne(work: Pick<DeliveryRow, 'subscriptionId' | 'subscription'>): Promise<boolean> {
    const rate = work.subscription.rateLimitPerSecond;
    if (!rate) return true;
    const [wait] = await this.pacer.reserve(work.subscriptionId, rate, 1, HORIZON_MS);
    if (wait === undefined) return false;
    if (wait > 0) await sleep(wait);
    return true;
  }

  /**
   * A batch's turns: start times (this process's clock, ms) for up to `wanted` attempts, at least one,
   * waiting until the shared schedule has room within the horizon.
   */
  async turns(work: Pick<DeliveryRow, 'subscriptionId' | 'subscription'>, wanted: number): Promise<number[]> {
    const rate = work.subscription.rateLimitPerSecond;
    if (!rate) return Array.from({ length: wanted }, () => 0);
    for (;;) {
      try {
        const now = Date.now();
        const waits = await this.pacer.reserve(work.subscriptionId, rate, wanted, HORIZON_MS);
        if (waits.length > 0) return waits.map((wait) => now + wait);
        await sleep(HORIZON_MS / 2);
      } catch (error) {
        this.logger.warn(`pacing ${work.subscriptionId} failed, its attempts wait: ${(error as Error).message}`);
        await sleep(RETRY_MS);
      }
    }
  }
}
