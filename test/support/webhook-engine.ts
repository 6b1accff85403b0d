import { DataSource } from 'typeorm';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp } from './app';
import { dropRedisPrefix } from './test-env';
import { receiverPool, WebhookReceiver } from './webhook-receiver';
import { startWorker, TestWorker } from './worker';

export interface StartedEngine {
  t: TestApp;
  db: DataSource;
  worker: TestWorker;
  /** A fresh account of this file, and its client. */
  account: TestAccount;
  api: ApiClient;
}

/**
 * The API and one worker on `env` (its REDIS_PREFIX private to the file) for a webhook test file: started
 * in beforeAll with an account, stopped in afterAll with every receiver the file started and the prefix's keys.
 */
export function useWebhookEngine(env: Record<string, string>): { started(): StartedEngine; receiver(): Promise<WebhookReceiver> } {
  let started: StartedEngine | undefined;
  const receivers = receiverPool();
  beforeAll(async () => {
    const t = await startApp(env);
    const worker = await startWorker(env);
    const account = await createAccount(t);
    started = { t, db: t.app.get(DataSource), worker, account, api: clientFor(t, account) };
  });
  afterAll(async () => {
    await started?.worker.close();
    await started?.t.close();
    await receivers.closeAll();
    if (started) await dropRedisPrefix(started.t.config.redisUrl, env.REDIS_PREFIX);
  });
  return {
    started: () => {
      if (!started) throw new Error('the webhook engine starts in beforeAll');
      return started;
    },
    receiver: receivers.receiver,
  };
}
