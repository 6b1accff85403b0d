import { OutageTracker } from './outage-tracker';

function setup() {
  const lines: Array<[string, Record<string, unknown>, string]> = [];
  let up = false;
  let probes = 0;
  let clock = 1_000;
  const tracker = new OutageTracker({
    dependency: 'database',
    logger: {
      warn: (fields, message) => lines.push(['warn', fields, message]),
      log: (fields, message) => lines.push(['info', fields, message]),
    },
    probe: async () => {
      probes++;
      if (!up) throw new Error('connect ECONNREFUSED');
    },
    probeEveryMs: 1_000,
    now: () => clock,
  });
  return {
    tracker,
    lines,
    setUp: (value: boolean) => (up = value),
    probes: () => probes,
    advance: async (ms: number) => {
      clock += ms;
      await jest.advanceTimersByTimeAsync(ms);
    },
  };
}

describe('OutageTracker', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('logs one line when an outage starts and one when a probe finds the dependency back, however many failures between', async () => {
    const { tracker, lines, setUp, advance } = setup();
    for (let i = 0; i < 50; i++) tracker.failed(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    expect(tracker.isDown).toBe(true);
    await advance(3_000);
    for (let i = 0; i < 50; i++) tracker.failed(new Error('terminating connection due to administrator command'));
    setUp(true);
    await advance(1_000);
    expect(tracker.isDown).toBe(false);
    expect(lines).toEqual([
      ['warn', { dependency: 'database', error: 'connect ECONNREFUSED 127.0.0.1:5432', probeEveryMs: 1_000 }, 'database unavailable'],
      ['info', { dependency: 'database', downForMs: 4_000, failures: 100 }, 'database available again'],
    ]);
  });

  it('probes only while the dependency is down, and tracks the next outage on its own', async () => {
    const { tracker, lines, setUp, probes, advance } = setup();
    await advance(10_000);
    expect(probes()).toBe(0);
    tracker.failed(new Error('first'));
    setUp(true);
    await advance(1_000);
    expect(probes()).toBe(1);
    await advance(10_000);
    expect(probes()).toBe(1);
    setUp(false);
    tracker.failed(new Error('second'));
    await advance(2_000);
    setUp(true);
    await advance(1_000);
    expect(lines.map(([level, fields]) => [level, fields.error ?? fields.downForMs])).toEqual([
      ['warn', 'first'],
      ['info', 1_000],
      ['warn', 'second'],
      ['info', 3_000],
    ]);
  });

  it('takes failures reported within a probe interval after the end for stragglers, and later ones for a new outage', async () => {
    const { tracker, lines, setUp, advance } = setup();
    tracker.failed(new Error('down'));
    setUp(true);
    await advance(1_000);
    await advance(500);
    tracker.failed(new Error('answered late'));
    expect(tracker.isDown).toBe(false);
    await advance(500);
    setUp(false);
    tracker.failed(new Error('down again'));
    expect(tracker.isDown).toBe(true);
    expect(lines.map(([level, fields]) => [level, fields.error ?? fields.downForMs])).toEqual([
      ['warn', 'down'],
      ['info', 1_000],
      ['warn', 'down again'],
    ]);
  });

  it('stops probing once stopped, and logs no new outage after that', async () => {
    const { tracker, lines, probes, advance } = setup();
    tracker.failed(new Error('down'));
    tracker.stop();
    await advance(5_000);
    expect(probes()).toBe(0);
    tracker.failed(new Error('again'));
    expect(lines).toHaveLength(1);
  });
});
