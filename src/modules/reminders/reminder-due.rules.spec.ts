import { armHorizonMs, dueDelayMs, dueJobId, isWithinArmHorizon } from './reminder-due.rules';

describe('reminder due rules', () => {
  it('a job per reminder and date, with an id BullMQ accepts', () => {
    const date = new Date('2030-01-04T10:00:00.000Z');
    expect(dueJobId('rem_01ABC', date)).toBe(`rem_01ABC.${date.getTime()}`);
    expect(dueJobId('rem_01ABC', date)).not.toContain(':');
    expect(dueJobId('rem_01ABC', new Date(date.getTime() + 1))).not.toBe(dueJobId('rem_01ABC', date));
  });

  it('waits until the date, not at all for a past one', () => {
    const date = new Date('2030-01-04T10:00:00.000Z');
    expect(dueDelayMs(date, date.getTime() - 1500)).toBe(1500);
    expect(dueDelayMs(date, date.getTime())).toBe(0);
    expect(dueDelayMs(date, date.getTime() + 5000)).toBe(0);
  });

  it('arms at least two sweep periods ahead, and never less than 10 s', () => {
    expect(armHorizonMs(5000)).toBe(10_000);
    expect(armHorizonMs(60_000)).toBe(120_000);
    expect(armHorizonMs(0)).toBe(10_000);
  });

  it('a reminder is armed at once only when due within the horizon (past dates included)', () => {
    const now = Date.UTC(2030, 0, 1);
    expect(isWithinArmHorizon(new Date(now + 10_000), now, 10_000)).toBe(true);
    expect(isWithinArmHorizon(new Date(now + 10_001), now, 10_000)).toBe(false);
    expect(isWithinArmHorizon(new Date(now - 60_000), now, 10_000)).toBe(true);
  });
});
