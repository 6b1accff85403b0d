import { QueryFailedError } from 'typeorm';
import { isUniqueViolation } from './pg-errors';

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
