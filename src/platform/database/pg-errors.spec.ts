import { QueryFailedError } from 'typeorm';
import { isForeignKeyViolation, isUniqueViolation } from './pg-errors';

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
