import { Logger } from '@nestjs/common';
import { Metrics } from '../metrics/metrics';
import { RedisCircuit } from './redis-circuit';

describe('RedisCircuit', () => {
  let metrics: Metrics;
  let circuit: RedisCircuit;
  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    metrics = new Metrics('api');
    // Nothing listens on port 1: the probe never hears Redis, so the circuit stays open once opened.
    circuit = new RedisCircuit({ redis: { mode: 'single', url: 'redis://127.0.0.1:1' } }, metrics);
  });
  afterEach(async () => {
    await circuit.onApplicationShutdown();
    jest.restoreAllMocks();
  });

  const gauge = async () => (await metrics.redisCircuitOpen.get()).values[0]?.value;

  it('is closed until a command times out, then open (once, however many time out)', async () => {
    expect(circuit.isOpen).toBe(false);
    expect(await gauge()).toBe(0);
    circuit.timedOut('rateLimit', 'Command timed out');
    circuit.timedOut('enqueue', 'lost');
    expect(circuit.isOpen).toBe(true);
    expect(await gauge()).toBe(1);
    expect(Logger.prototype.warn).toHaveBeenCalledTimes(1);
  });

  it('lets a wait on Redis go on with its value while closed, and stops it when the circuit opens', async () => {
    await expect(circuit.race(Promise.resolve(7), 'rateLimit', 1_000)).resolves.toEqual({ value: 7 });
    await expect(circuit.race(Promise.reject(new Error('refused')), 'rateLimit', 1_000)).rejects.toThrow('refused');
    const hung = new Promise<number>(() => undefined);
    const waiting = circuit.race(hung, 'rateLimit', 60_000);
    circuit.timedOut('rateLimit', 'Command timed out');
    await expect(waiting).resolves.toBeUndefined();
    // While open, at once.
    await expect(circuit.race(hung, 'rateLimit', 60_000)).resolves.toBeUndefined();
  });

  it('opens itself when a call is not answered within its deadline', async () => {
    const waiting = circuit.race(new Promise<number>(() => undefined), 'rateLimit', 20);
    await expect(waiting).resolves.toBeUndefined();
    expect(circuit.isOpen).toBe(true);
  });

  it('counts what went on without Redis, by operation', async () => {
    circuit.gaveUp('rateLimit');
    circuit.gaveUp('rateLimit');
    circuit.gaveUp('enqueue');
    const values = (await metrics.redisGivenUp.get()).values.map((v) => [v.labels.operation, v.value]);
    expect(values).toEqual([
      ['rateLimit', 2],
      ['enqueue', 1],
    ]);
  });
});
