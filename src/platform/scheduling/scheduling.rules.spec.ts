import { advisoryLockKey, JITTER_SHARE, nextCheckDelayMs, SCHEDULER_LOCK_CLASS } from './scheduling.rules';

describe('advisoryLockKey', () => {
  it('is two int4 values: the scheduler class and a stable hash of the name', () => {
    const [classId, objectId] = advisoryLockKey('webhook-sweep');
    expect(classId).toBe(SCHEDULER_LOCK_CLASS);
    expect(Number.isInteger(objectId)).toBe(true);
    expect(objectId).toBeGreaterThanOrEqual(-(2 ** 31));
    expect(objectId).toBeLessThan(2 ** 31);
    expect(advisoryLockKey('webhook-sweep')).toEqual([classId, objectId]);
    expect(SCHEDULER_LOCK_CLASS).toBeLessThan(2 ** 31);
  });

  it('differs between task names', () => {
    const names = ['webhook-sweep', 'webhook-retention', 'reminder-sweep', 'a', 'b'];
    expect(new Set(names.map((name) => advisoryLockKey(name)[1])).size).toBe(names.length);
  });
});

describe('nextCheckDelayMs', () => {
  it('waits until the task is due, plus up to a tenth of the interval', () => {
    expect(nextCheckDelayMs(5_000, 5_000, 0)).toBe(5_000);
    expect(nextCheckDelayMs(5_000, 5_000, 0.999)).toBe(5_000 + Math.floor(0.999 * 5_000 * JITTER_SHARE));
    expect(nextCheckDelayMs(1_200, 5_000, 0.5)).toBe(1_450);
  });

  it('never waits a negative time', () => {
    expect(nextCheckDelayMs(-300, 1_000, 0)).toBe(0);
    expect(nextCheckDelayMs(0, 1_000, 0.5)).toBe(50);
  });
});
