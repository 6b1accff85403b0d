import { DataSource } from 'typeorm';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp } from './app';
import { dropRedisPrefix } from './test-env';
import { receiverPool, WebhookReceiver } from './webhook-receiver';
import { startWorker, TestWorker } from './worker';
import { spawnWorkerProcess, WorkerProcess } from './worker-process';

/** Retries 100 ms apart and a 1 s time-out: a file's failing deliveries settle within seconds. */
export const QUICK_RETRIES = { WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '1000' };

/**
 * A webhook test file's env: its own Redis prefix (`pop-test-<run>-<name>`), where no other file's worker
 * takes its jobs, and the scheduled sweep and retention off (they scan the whole database, which other
 * files share; a file that needs them calls the services scoped to its own accounts), plus `settings`.
 */
export function webhookTestEnv(name: string, settings: Record<string, string> = {}): Record<string, string> {
  return {
    REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-${name}`,
    WEBHOOK_SWEEP_INTERVAL_MS: '0',
    WEBHOOK_RETENTION_INTERVAL_MS: '0',
    ...settings,
  };
}

export interface StartedApi {
  t: TestApp;
  db: DataSource;
  /** A fresh account of this file, and its client. */
  account: TestAccount;
  api: ApiClient;
}

export interface StartedEngine extends StartedApi {
  worker: TestWorker;
}

export interface WebhookTestHooks<T> {
  /** What beforeAll started (read it in a beforeAll declared after the call, or in tests). */
  started(): T;
  /** A loopback receiver, closed in afterAll. */
  receiver(): Promise<WebhookReceiver>;
  /** Another worker on the file's env (with `overrides`) in this process, closed in afterAll unless closed before. */
  worker(overrides?: Record<string, string>): Promise<TestWorker>;
  /** The built worker as a child process on the file's env, killed in afterAll if it still runs. */
  workerProcess(overrides?: Record<string, string>, startWithinMs?: number): Promise<WorkerProcess>;
}

/**
 * The API and one worker on `env` (its REDIS_PREFIX private to the file) for a webhook test file: started
 * in beforeAll with an account, stopped in afterAll with every receiver the file started and the prefix's keys.
 */
export function useWebhookEngine(env: Record<string, string>): WebhookTestHooks<StartedEngine> {
  return useStarted(
    env,
    async (started) => ({ ...started, worker: await startWorker(env) }),
    (started) => started.worker.close(),
  );
}

/**
 * The API alone, as useWebhookEngine starts it, for a file that starts (and kills) its workers itself,
 * through `worker()` and `workerProcess()`: afterAll stops them before the app, and the prefix's keys last.
 */
export function useWebhookApi(env: Record<string, string>): WebhookTestHooks<StartedApi> {
  return useStarted(
    env,
    async (started) => started,
    async () => {},
  );
}

function useStarted<T extends StartedApi>(
  env: Record<string, string>,
  start: (api: StartedApi) => Promise<T>,
  stop: (started: T) => Promise<void>,
): WebhookTestHooks<T> {
  let started: T | undefined;
  const receivers = receiverPool();
  const workers: TestWorker[] = [];
  const processes: WorkerProcess[] = [];
  beforeAll(async () => {
    const t = await startApp(env);
    const account = await createAccount(t);
    started = await start({ t, db: t.app.get(DataSource), account, api: clientFor(t, account) });
  });
  afterAll(async () => {
    for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(processes.map((p) => p.exited));
    for (const w of workers) await w.close();
    if (started) await stop(started);
    await started?.t.close();
    await receivers.closeAll();
    if (started) await dropRedisPrefix(started.t.config.redis, env.REDIS_PREFIX);
  });
  return {
    started: () => {
      if (!started) throw new Error('the webhook test app starts in beforeAll');
      return started;
    },
    receiver: receivers.receiver,
    worker: async (overrides = {}) => {
      const w = await startWorker({ ...env, ...overrides });
      let closing: Promise<void> | undefined;
      const once = { ...w, close: () => (closing ??= w.close()) };
      workers.push(once);
      return once;
    },
    workerProcess: async (overrides = {}, startWithinMs) => {
      const p = await spawnWorkerProcess({ ...env, ...overrides }, startWithinMs);
      processes.push(p);
      return p;
    },
  };
}
