import { dueDelayMs, dueJobId, rearmHorizonMs } from './reminder-due.rules';

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

  it('re-arms at least two sweep periods ahead, and never less than 10 s', () => {
    expect(rearmHorizonMs(5000)).toBe(10_000);
    expect(rearmHorizonMs(60_000)).toBe(120_000);
    expect(rearmHorizonMs(0)).toBe(10_000);
  });
});
