/**
 * Turns many concurrent single-item calls into few batch calls, without a timer: while fewer than
 * `maxParallel` batches run, a call starts a batch at once (no added latency when idle); calls that
 * arrive meanwhile are collected and go together, up to `maxBatch` per batch, when one finishes.
 * `run` answers one result per item, in order.
 *
 * Not DataLoader: DataLoader sends each tick's calls as one batch however many batches already run, so
 * under load it issues many small queries; here batches grow while the running ones are busy, and at
 * most `maxParallel` run. Items are values (records to write), not cache keys.
 */
export class Coalescer<I, O> {
  private readonly waiting: Array<{ item: I; resolve: (value: O) => void; reject: (error: unknown) => void }> = [];
  private runningBatches = 0;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch: number,
    private readonly maxParallel: number,
  ) {}

  call(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.runningBatches < this.maxParallel && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      this.runningBatches++;
      Promise.resolve()
        .then(() => this.run(batch.map((entry) => entry.item)))
        .then(
          (results) => batch.forEach((entry, i) => entry.resolve(results[i])),
          (error: unknown) => batch.forEach((entry) => entry.reject(error)),
        )
        .finally(() => {
          this.runningBatches--;
          this.pump();
        });
    }
  }
}
