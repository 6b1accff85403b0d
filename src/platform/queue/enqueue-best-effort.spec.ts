import { Logger } from '@nestjs/common';
import { enqueueBestEffort } from './enqueue-best-effort';

describe('enqueueBestEffort', () => {
  const warnings: string[] = [];
  const infos: string[] = [];
  // A logger per test: failures are counted per logger.
  let logger: Logger;
  beforeEach(() => {
    warnings.length = 0;
    infos.length = 0;
    logger = { warn: (message: string) => warnings.push(message), log: (message: string) => infos.push(message) } as unknown as Logger;
  });

  it('resolves true once the add completes, logging nothing', async () => {
    await expect(enqueueBestEffort(() => Promise.resolve('job'), logger, 'lost')).resolves.toBe(true);
    expect(warnings).toEqual([]);
  });

  it('never throws: a failed add (or one that throws before its promise) is logged with what is lost, once per run of failures', async () => {
    await expect(enqueueBestEffort(() => Promise.reject(new Error('ECONNREFUSED')), logger, 'queueing 2 jobs failed')).resolves.toBe(false);
    const throwing = () => {
      throw new Error('closed');
    };
    await expect(enqueueBestEffort(throwing, logger, 'queueing 1 job failed')).resolves.toBe(false);
    expect(warnings).toEqual(['queueing 2 jobs failed: ECONNREFUSED (further failures are counted until an add works again)']);
    expect(infos).toEqual([]);

    await expect(enqueueBestEffort(() => Promise.resolve('job'), logger, 'lost')).resolves.toBe(true);
    expect(infos).toHaveLength(1);
    expect(infos[0]).toMatch(/^enqueueing works again, after 2 failed add\(s\) in \d+ ms/);
    await expect(enqueueBestEffort(() => Promise.reject(new Error('ECONNREFUSED')), logger, 'lost again')).resolves.toBe(false);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatch(/^lost again: ECONNREFUSED/);
  });

  it('stops waiting at its bound on an add that never settles', async () => {
    const never = new Promise<never>(() => undefined);
    await expect(enqueueBestEffort(() => never, logger, 'lost', 20)).resolves.toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^lost: /);
  });
});

describe('enqueueBestEffort with a RedisCircuit', () => {
  const logger = { warn: () => undefined, log: () => undefined } as unknown as Logger;
  const circuitOf = (open: boolean) => ({ isOpen: open, timedOut: jest.fn(), gaveUp: jest.fn() });

  it('adds nothing while the circuit is open (the sweep catches it up), counting it', async () => {
    const circuit = circuitOf(true);
    const add = jest.fn(() => Promise.resolve());
    await expect(enqueueBestEffort(add, logger, 'lost', 50, circuit)).resolves.toBe(false);
    expect(add).not.toHaveBeenCalled();
    expect(circuit.gaveUp).toHaveBeenCalledWith('enqueue');
  });

  it('opens the circuit when an add does not answer in time, not when it fails', async () => {
    const circuit = circuitOf(false);
    await enqueueBestEffort(() => Promise.reject(new Error('refused')), logger, 'lost', 50, circuit);
    expect(circuit.timedOut).not.toHaveBeenCalled();
    await enqueueBestEffort(() => new Promise(() => undefined), logger, 'lost', 20, circuit);
    expect(circuit.timedOut).toHaveBeenCalledWith('enqueue', 'lost');
  });
});
