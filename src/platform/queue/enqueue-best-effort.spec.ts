import { Logger } from '@nestjs/common';
import { enqueueBestEffort } from './enqueue-best-effort';

describe('enqueueBestEffort', () => {
  const warnings: string[] = [];
  const logger = { warn: (message: string) => warnings.push(message) } as unknown as Logger;
  beforeEach(() => (warnings.length = 0));

  it('resolves true once the add completes, logging nothing', async () => {
    await expect(enqueueBestEffort(() => Promise.resolve('job'), logger, 'lost')).resolves.toBe(true);
    expect(warnings).toEqual([]);
  });

  it('never throws: a failed add (or one that throws before its promise) is logged with what is lost', async () => {
    await expect(enqueueBestEffort(() => Promise.reject(new Error('ECONNREFUSED')), logger, 'queueing 2 jobs failed')).resolves.toBe(false);
    const throwing = () => {
      throw new Error('closed');
    };
    await expect(enqueueBestEffort(throwing, logger, 'queueing 1 job failed')).resolves.toBe(false);
    expect(warnings).toEqual(['queueing 2 jobs failed: ECONNREFUSED', 'queueing 1 job failed: closed']);
  });

  it('stops waiting at its bound on an add that never settles', async () => {
    const never = new Promise<never>(() => undefined);
    await expect(enqueueBestEffort(() => never, logger, 'lost', 20)).resolves.toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^lost: /);
  });
});
