import { QueryFailedError } from 'typeorm';
import { TRANSACTION_TRIES, transactionRetry } from './transaction-retry.rules';

const failed = (code: string) => new QueryFailedError('UPDATE', [], Object.assign(new Error(`sqlstate ${code}`), { code }));

describe('transactionRetry', () => {
  it('runs a deadlock victim or a serialization failure again, up to TRANSACTION_TRIES in all', () => {
    expect(TRANSACTION_TRIES).toBe(3);
    for (const code of ['40P01', '40001']) {
      expect(transactionRetry(failed(code), 1, 0.5)).toEqual({ delayMs: 20 });
      expect(transactionRetry(failed(code), 2, 0.5)).toEqual({ delayMs: 40 });
      expect(transactionRetry(failed(code), 3, 0.5)).toBeUndefined();
    }
  });

  it('jitters the wait between half and one and a half of its base', () => {
    expect(transactionRetry(failed('40P01'), 1, 0)).toEqual({ delayMs: 10 });
    expect(transactionRetry(failed('40P01'), 1, 0.999)).toEqual({ delayMs: 30 });
    expect(transactionRetry(failed('40P01'), 2, 0)).toEqual({ delayMs: 20 });
  });

  it('leaves every other error to the caller at once: a constraint, a lock time-out, an outage, our own', () => {
    for (const code of ['23505', '23503', '55P03', '57P01', '08006']) expect(transactionRetry(failed(code), 1, 0.5)).toBeUndefined();
    expect(transactionRetry(Object.assign(new Error('not wrapped by TypeORM'), { code: '40P01' }), 1, 0.5)).toBeUndefined();
    expect(transactionRetry(new Error('boom'), 1, 0.5)).toBeUndefined();
    expect(transactionRetry(undefined, 1, 0.5)).toBeUndefined();
  });
});
