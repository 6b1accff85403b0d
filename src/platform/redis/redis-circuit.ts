import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Cluster } from 'ioredis';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Metrics } from '../metrics/metrics';
import { closeRedisClient, createRedisClient, RedisClient } from './redis-factory';

/** How often a probe asks a Redis taken for hung whether it answers again. */
export const REDIS_PROBE_INTERVAL_MS = 250;
/** A probe's PING that has not answered by then counts as no answer. */
export const REDIS_PROBE_TIMEOUT_MS = 500;

/**
 * A Redis that stops answering (frozen, a network partition that drops packets) is noticed once, not
 * paid on every request: the first command that times out opens the circuit, and until a probe hears
 * Redis again the request path goes on without waiting for it (the rate limiter counts in memory,
 * queue hand-overs are left to the sweeps). The probe PINGs on a connection of its own every 250 ms
 * (on a Cluster, asks every primary for CLUSTER INFO and wants `cluster_state:ok`), so it also hears Redis come back while the app's own connections
 * still wait on commands sent before the hang. An unreachable Redis (refused, reset) needs no
 * circuit: its clients fail at once and reconnect on their own (RedisOutageLog).
 *
 * One per process. `pop_redis_circuit_open` is 1 while open; `pop_redis_given_up_total{operation}`
 * counts what was not attempted or not waited for meanwhile.
 */
@Injectable()
export class RedisCircuit implements OnApplicationShutdown {
  private readonly logger = new Logger('RedisCircuit');
  private openSince: number | null = null;
  private givenUp = 0;
  private probe?: RedisClient;
  private timer?: NodeJS.Timeout;
  /** Waits on Redis that stop at the circuit's opening (race): removed when they settle, so none piles up. */
  private readonly waiting = new Set<() => void>();
  private readonly openListeners: Array<() => void> = [];
  private closedForGood = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'redis'>,
    private readonly metrics: Metrics,
  ) {}

  /** Whether requests should not wait for Redis now. */
  get isOpen(): boolean {
    return this.openSince !== null;
  }

  /**
   * `call`'s value, or `undefined` if the circuit opens first: the caller stops waiting and goes on
   * without Redis; the call's late outcome is dropped. A call of `operation` still unanswered after
   * `withinMs` opens the circuit itself (a deadline of ours, not the client's: a Cluster client retries
   * a command across redirections and CLUSTERDOWN for longer than one command time-out).
   */
  race<T>(call: Promise<T>, operation: string, withinMs: number): Promise<{ value: T } | undefined> {
    if (this.isOpen) {
      call.catch(() => undefined);
      return Promise.resolve(undefined);
    }
    return new Promise((resolve, reject) => {
      const onOpen = () => {
        call.catch(() => undefined);
        resolve(undefined);
      };
      this.waiting.add(onOpen);
      const deadline = setTimeout(() => this.timedOut(operation, `no answer within ${withinMs} ms`), withinMs);
      call
        .then(
          (value) => resolve({ value }),
          (error: unknown) => reject(error as Error),
        )
        .finally(() => {
          clearTimeout(deadline);
          this.waiting.delete(onOpen);
        });
    });
  }

  /** A Redis command of `operation` did not answer in time: requests stop waiting for Redis until a probe hears it. */
  timedOut(operation: string, reason: string): void {
    if (this.openSince !== null || this.closedForGood) return;
    this.openSince = Date.now();
    this.givenUp = 0;
    this.metrics.redisCircuitOpen.set(1);
    this.logger.warn(
      { operation, reason },
      'Redis stopped answering: requests go on without waiting for it (rate limits in memory, queue hand-overs left to the sweep) until a probe hears it again',
    );
    for (const stop of this.waiting) stop();
    this.waiting.clear();
    for (const listener of this.openListeners) listener();
    this.scheduleProbe();
  }

  /**
   * Runs `listener` each time the circuit opens: a client whose commands went unanswered drops its
   * socket there, so it reconnects (through Sentinel: to whatever is primary now) instead of staying on
   * a connection that may never answer again.
   */
  onOpen(listener: () => void): void {
    this.openListeners.push(listener);
  }

  /** `operation` went on without Redis because the circuit is open (counted; logged in sum when it closes). */
  gaveUp(operation: string): void {
    this.givenUp++;
    this.metrics.redisGivenUp.inc({ operation });
  }

  async onApplicationShutdown(): Promise<void> {
    this.closedForGood = true;
    clearTimeout(this.timer);
    if (this.probe) await closeRedisClient(this.probe);
  }

  private scheduleProbe(): void {
    if (this.closedForGood) return;
    this.timer = setTimeout(() => void this.runProbe(), REDIS_PROBE_INTERVAL_MS);
    this.timer.unref();
  }

  private async runProbe(): Promise<void> {
    if (await this.answers()) {
      const after = Date.now() - (this.openSince ?? Date.now());
      this.openSince = null;
      this.metrics.redisCircuitOpen.set(0);
      this.logger.log({ afterMs: after, givenUp: this.givenUp }, 'Redis answers again: requests use it again');
      return;
    }
    this.scheduleProbe();
  }

  /** PING on the probe's own connection (on a Cluster, every primary), each within REDIS_PROBE_TIMEOUT_MS. */
  private async answers(): Promise<boolean> {
    this.probe ??= this.createProbe();
    const probe = this.probe;
    const deadline = AbortSignal.timeout(REDIS_PROBE_TIMEOUT_MS);
    // On a Cluster every primary must answer, and the cluster must say it serves every slot: a primary
    // taken for failed leaves the others answering PING but refusing commands (CLUSTERDOWN).
    const pings: Array<Promise<unknown>> =
      probe instanceof Cluster
        ? probe.nodes('master').map((node) =>
            node.cluster('INFO').then((info) => {
              if (!String(info).includes('cluster_state:ok')) throw new Error('cluster down');
            }),
          )
        : [probe.ping()];
    if (pings.length === 0) return false;
    try {
      await new Promise<void>((resolve, reject) => {
        deadline.addEventListener('abort', () => reject(new Error('probe timed out')), { once: true });
        Promise.all(pings).then(() => resolve(), reject);
      });
      return true;
    } catch {
      return false;
    }
  }

  private createProbe(): RedisClient {
    const probe = createRedisClient(this.config.redis, {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      commandTimeout: REDIS_PROBE_TIMEOUT_MS,
    });
    probe.on('error', () => undefined); // the probe's failures are its answer, not news
    return probe;
  }
}
