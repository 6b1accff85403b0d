import { loadConfig } from '../../../config/config';
import { RETENTION_SCHEDULER_ID, SWEEP_SCHEDULER_ID, WebhookMaintenanceProcessor } from './webhook-maintenance.processor';

function setup(env: Record<string, string>) {
  const calls: unknown[][] = [];
  const queue = {
    upsertJobScheduler: jest.fn(async (...args: unknown[]) => calls.push(['upsert', ...args])),
    removeJobScheduler: jest.fn(async (...args: unknown[]) => calls.push(['remove', ...args])),
  };
  const sweeper = { sweep: jest.fn(async () => ({ events: 1, deliveriesCreated: 2, reenqueued: 3 })) };
  const retention = { run: jest.fn(async () => ({ deliveries: 4, events: 5, idempotencyKeys: 6 })) };
  const config = loadConfig({ NODE_ENV: 'test', ...env });
  const processor = new WebhookMaintenanceProcessor(config, queue as never, sweeper as never, retention as never);
  return { processor, calls, sweeper, retention };
}

describe('WebhookMaintenanceProcessor', () => {
  it('schedules the sweep and retention with the configured intervals (defaults 5 s and 1 h)', async () => {
    const { processor, calls } = setup({});
    expect(await processor.registerSchedulers()).toBe(true);
    const template = { opts: { removeOnComplete: true, removeOnFail: true } };
    expect(calls).toEqual([
      ['upsert', SWEEP_SCHEDULER_ID, { every: 5000 }, { name: 'sweep', ...template }],
      ['upsert', RETENTION_SCHEDULER_ID, { every: 3_600_000 }, { name: 'retention', ...template }],
    ]);
  });

  it('removes a scheduler whose interval is 0', async () => {
    const { processor, calls } = setup({ WEBHOOK_SWEEP_INTERVAL_MS: '0', WEBHOOK_RETENTION_INTERVAL_MS: '250' });
    expect(await processor.registerSchedulers()).toBe(true);
    expect(calls.map((c) => c.slice(0, 3))).toEqual([
      ['remove', SWEEP_SCHEDULER_ID],
      ['upsert', RETENTION_SCHEDULER_ID, { every: 250 }],
    ]);
    const off = setup({ WEBHOOK_SWEEP_INTERVAL_MS: '0', WEBHOOK_RETENTION_INTERVAL_MS: '0' });
    expect(await off.processor.registerSchedulers()).toBe(false);
  });

  it('routes jobs by name', async () => {
    const { processor, sweeper, retention } = setup({});
    expect(await processor.run({ name: 'sweep' })).toEqual({ events: 1, deliveriesCreated: 2, reenqueued: 3 });
    expect(await processor.run({ name: 'retention' })).toEqual({ deliveries: 4, events: 5, idempotencyKeys: 6 });
    expect(await processor.run({ name: 'other' })).toBeUndefined();
    expect(sweeper.sweep).toHaveBeenCalledTimes(1);
    expect(retention.run).toHaveBeenCalledTimes(1);
  });

  it('refuses negative or fractional intervals in config', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', WEBHOOK_SWEEP_INTERVAL_MS: '-1' })).toThrow('WEBHOOK_SWEEP_INTERVAL_MS');
    expect(() => loadConfig({ NODE_ENV: 'test', WEBHOOK_RETENTION_INTERVAL_MS: '1.5' })).toThrow('WEBHOOK_RETENTION_INTERVAL_MS');
  });
});
