/** Where the tracker writes its two lines (a Nest Logger fits). */
export interface OutageLogger {
  warn(fields: Record<string, unknown>, message: string): unknown;
  log(fields: Record<string, unknown>, message: string): unknown;
}

export interface OutageTrackerOptions {
  /** The dependency, as the log lines name it ("database"). */
  dependency: string;
  logger: OutageLogger;
  /** Resolves when the dependency answers again; rejects while it does not. */
  probe: () => Promise<unknown>;
  /** Pause between two probes while the dependency is down. */
  probeEveryMs: number;
  now?: () => number;
}

/**
 * One process's view of a dependency's outage: the first failure that reports it logs one line and
 * starts probing; the first probe that succeeds logs the other (with how long it lasted). Failures
 * reported in between are counted, not logged, so an outage under load is two lines, not a stack per
 * request. Failures within one probe interval after the end are taken for stragglers of that outage. Nothing waits on it: requests and jobs keep trying the dependency themselves.
 */
export class OutageTracker {
  private since: number | null = null;
  private endedAt = Number.NEGATIVE_INFINITY;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly options: OutageTrackerOptions) {
    this.now = options.now ?? Date.now;
  }

  get isDown(): boolean {
    return this.since !== null;
  }

  /** Reports a failure that the dependency's outage caused. */
  failed(error: unknown): void {
    this.failures++;
    if (this.since !== null || this.stopped) return;
    // A straggler: a request that failed before the probe found the dependency back, answered just after.
    // Were the dependency down again, the failures would go on and the next one open the outage.
    if (this.now() - this.endedAt < this.options.probeEveryMs) return;
    this.since = this.now();
    this.failures = 1;
    const { dependency, logger } = this.options;
    const message = error instanceof Error ? error.message : String(error);
    logger.warn({ dependency, error: message, probeEveryMs: this.options.probeEveryMs }, `${dependency} unavailable`);
    this.scheduleProbe();
  }

  /** Stops probing (at shutdown); an outage still open is left unlogged. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private scheduleProbe(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.probe(), this.options.probeEveryMs);
    this.timer.unref();
  }

  private async probe(): Promise<void> {
    try {
      await this.options.probe();
    } catch {
      this.scheduleProbe();
      return;
    }
    if (this.since === null || this.stopped) return;
    const { dependency, logger } = this.options;
    logger.log({ dependency, downForMs: this.now() - this.since, failures: this.failures }, `${dependency} available again`);
    this.since = null;
    this.endedAt = this.now();
  }
}
