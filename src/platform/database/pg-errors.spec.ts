import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { isDatabaseUnavailable, isForeignKeyViolation, isTransactionConflict, isUniqueViolation } from './pg-errors';

describe('isUniqueViolation', () => {
  const pg = (code: string, constraint?: string) => Object.assign(new Error('duplicate key'), { code, constraint });
  const failed = (code: string, constraint?: string) => new QueryFailedError('INSERT', [], pg(code, constraint));

  it('recognises a unique violation on the named constraint', () => {
    expect(isUniqueViolation(failed('23505', 'webhook_subscriptions_account_id_url_key'), 'webhook_subscriptions_account_id_url_key')).toBe(
      true,
    );
  });

  it('ignores other constraints, other errors and non-query failures', () => {
    expect(isUniqueViolation(failed('23505', 'webhook_subscriptions_pkey'), 'webhook_subscriptions_account_id_url_key')).toBe(false);
    expect(isUniqueViolation(failed('23503', 'webhook_subscriptions_account_id_url_key'), 'webhook_subscriptions_account_id_url_key')).toBe(
      false,
    );
    expect(isUniqueViolation(new Error('other'), 'x')).toBe(false);
    expect(isUniqueViolation(undefined, 'x')).toBe(false);
  });
});

describe('isForeignKeyViolation', () => {
  const failed = (code: string, constraint?: string) =>
    new QueryFailedError('INSERT', [], Object.assign(new Error('violates foreign key'), { code, constraint }));

  it('recognises a foreign key violation on the named constraint only', () => {
    expect(isForeignKeyViolation(failed('23503', 'webhook_replays_subscription_id_fkey'), 'webhook_replays_subscription_id_fkey')).toBe(
      true,
    );
    expect(isForeignKeyViolation(failed('23503', 'other_fkey'), 'webhook_replays_subscription_id_fkey')).toBe(false);
    expect(isForeignKeyViolation(failed('23505', 'webhook_replays_subscription_id_fkey'), 'webhook_replays_subscription_id_fkey')).toBe(
      false,
    );
    expect(isForeignKeyViolation(new Error('other'), 'x')).toBe(false);
  });
});

describe('isDatabaseUnavailable', () => {
  const pg = (code: string, message = 'server says no') => Object.assign(new Error(message), { code });
  const wrapped = (driverError: Error) => new QueryFailedError('SELECT 1', [], driverError);

  it.each(['57P01', '57P02', '57P03', '08006', '08001', '08P01', '53300'])('recognises SQLSTATE %s, bare or wrapped by TypeORM', (code) => {
    expect(isDatabaseUnavailable(pg(code))).toBe(true);
    expect(isDatabaseUnavailable(wrapped(pg(code)))).toBe(true);
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'])('recognises the socket error %s', (code) => {
    expect(isDatabaseUnavailable(pg(code, `connect ${code} 127.0.0.1:5432`))).toBe(true);
    expect(isDatabaseUnavailable(wrapped(pg(code)))).toBe(true);
  });

  it("recognises node-postgres's code-less connection errors, also as a cause", () => {
    expect(isDatabaseUnavailable(wrapped(new Error('Connection terminated unexpectedly')))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    const timeout = new Error('Connection terminated due to connection timeout', { cause: new Error('Connection terminated') });
    expect(isDatabaseUnavailable(timeout)).toBe(true);
    expect(isDatabaseUnavailable(new Error('outer', { cause: pg('ECONNREFUSED') }))).toBe(true);
  });

  it('recognises a query runner that TypeORM released when its connection failed', () => {
    expect(isDatabaseUnavailable(new QueryRunnerAlreadyReleasedError())).toBe(true);
    expect(isDatabaseUnavailable(new QueryRunnerProviderAlreadyReleasedError())).toBe(true);
  });

  it('leaves errors of the statement or its data alone', () => {
    for (const code of ['23505', '23503', '40001', '40P01', '55P03', '22021', '42P01'])
      expect(isDatabaseUnavailable(wrapped(pg(code)))).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});

describe('isTransactionConflict', () => {
  const failed = (code: string) => new QueryFailedError('UPDATE', [], Object.assign(new Error(`sqlstate ${code}`), { code }));

  it("recognises a deadlock's victim and a serialization failure", () => {
    expect(isTransactionConflict(failed('40P01'))).toBe(true);
    expect(isTransactionConflict(failed('40001'))).toBe(true);
  });

  it('leaves other failures alone', () => {
    for (const code of ['23505', '55P03', '57P01', '40002']) expect(isTransactionConflict(failed(code))).toBe(false);
    expect(isTransactionConflict(new Error('deadlock detected'))).toBe(false);
    expect(isTransactionConflict(undefined)).toBe(false);
  });
});
