import { Inject, Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppConfig } from '../../../../config/config';
import { APP_CONFIG } from '../../../../config/config.module';
import { KeyedConcurrencyLimiter } from '../../../../platform/concurrency/keyed-limiter';
import { DeliveryRow } from '../../webhook-delivery.row';
import { WebhookPacing } from './webhook-pacing.service';

/** What admission reads of an attempt: its subscription and that subscription's pacing. */
export type AdmittedWork = Pick<DeliveryRow, 'subscriptionId' | 'subscription'>;

/** Frees the subscription's slot an admitted attempt held (once its POST ended). */
export type Release = () => void;

/**
 * Where attempts get their pacing turns: one reserved for an attempt alone (none within the horizon:
 * it comes back later), or the next of its batch's (reserved together, waited for). `take` resolves once
 * the attempt's turn has come, false when it has none.
 */
export interface Turns {
  take(work: AdmittedWork): Promise<boolean>;
}

/**
 * The one owner of admission (worker side): whether, and when, a subscription may have another attempt
 * in flight. An attempt starts at its pacing turn (`rateLimitPerSecond`, shared by every worker through
 * Redis: WebhookPacing) holding one of its subscription's slots in this process
 * (WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION; more wait in memory while that is quick, see
 * KeyedConcurrencyLimiter); a subscription past that is busy, and its job is parked for about one of its
 * calls. The batch loop sizes its claims by the room here.
 */
@Injectable()
export class WebhookAdmission {
  private readonly limiter: KeyedConcurrencyLimiter;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly pacing: WebhookPacing,
  ) {
    this.limiter = new KeyedConcurrencyLimiter(config.webhook.concurrencyPerSubscription);
  }

  /**
   * Admits an attempt: its pacing turn, then one of its subscription's slots; the slot's release, or null
   * when the subscription is busy (no turn within the horizon, or no slot within the wait budget).
   */
  async admit(work: AdmittedWork, turns: Turns): Promise<Release | null> {
    if (!(await turns.take(work))) return null;
    return this.limiter.acquire(work.subscriptionId);
  }

  /** Turns for an attempt alone (a queue job): one within the horizon, or none (the job is parked). */
  alone(): Turns {
    return { take: (work) => this.pacing.startOne(work) };
  }

  /** Turns for a claimed batch, started in order: reserved for the rest of the batch whenever they run out, each waited for. */
  forBatch(works: readonly AdmittedWork[]): Turns {
    return new BatchTurns(this.pacing, works);
  }

  /** True when an attempt for this subscription would be busy: its job can be parked before any query. */
  isSaturated(subscriptionId: string): boolean {
    return this.limiter.isSaturated(subscriptionId);
  }

  /** How long to park a busy subscription's job: about one of its calls. */
  parkDelayMs(subscriptionId: string): number {
    return this.limiter.parkDelayMs(subscriptionId);
  }

  /** How many more attempts of this subscription this process would take now (free slots, and waiters it would keep). */
  room(subscriptionId: string, max: number): number {
    return this.limiter.room(subscriptionId, max);
  }
}

/** A batch's pacing turns (this process's clock, ms), reserved as they are needed and handed out in order. */
class BatchTurns implements Turns {
  private turns: number[] = [];
  private next = 0;

  constructor(
    private readonly pacing: WebhookPacing,
    private readonly works: readonly AdmittedWork[],
  ) {}

  async take(work: AdmittedWork): Promise<boolean> {
    // The attempts still to start from this one on (a stopped one before it took no turn).
    this.next = this.works.indexOf(work, this.next);
    if (this.turns.length === 0) this.turns = await this.pacing.turns(work, this.works.length - this.next);
    const wait = this.turns.shift()! - Date.now();
    if (wait > 0) await sleep(wait);
    return true;
  }
}
