import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/*
 * Preloaded into the API and worker under bench (`node --require probe.js dist/main.js`), never
 * in production: once a second it writes the process's resident memory and its event-loop delay
 * percentiles to BENCH_PROBE_FILE. A file named like it plus `.reset` starts a new window (a
 * signal would not do: Nest's shutdown hooks take SIGUSR2 as a request to stop).
 */
const file = process.env.BENCH_PROBE_FILE;
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
  const ms = (ns: number) => Math.round((ns / 1e6) * 100) / 100;
  const write = () => {
    if (existsSync(`${file}.reset`)) {
      rmSync(`${file}.reset`);
      delay.reset();
    }
    const memory = process.memoryUsage();
    const loopDelayMs = { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) };
    // Written aside and renamed, so a reader never sees a half-written file.
    writeFileSync(`${file}.tmp`, JSON.stringify({ rssMb: mb(memory.rss), heapUsedMb: mb(memory.heapUsed), loopDelayMs }));
    renameSync(`${file}.tmp`, file);
  };
  write();
  setInterval(write, 1000).unref();
}
