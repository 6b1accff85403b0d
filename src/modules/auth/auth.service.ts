import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Caller } from '../../platform/context/request-context';
import { Plan, SubscriptionStatus } from './account.entity';
import { InvalidApiKeyError, SubscriptionInactiveError } from './auth.errors';
import { hasApiAccess, hashApiKey, looksLikeApiKey, shouldTouchLastUsed } from './auth.rules';

interface KeyRow {
  api_key_id: string;
  account_id: string;
  last_used_at: Date | null;
  plan: Plan;
  subscription_status: SubscriptionStatus;
}

/**
 * Authenticates every request with one indexed read, never a cache: revoking a key
 * or deactivating an account therefore applies to the very next request in every
 * API process.
 */
@Injectable()
export class AuthService {
  private readonly logger = new Logger(AuthService.name);

  constructor(private readonly dataSource: DataSource) {}

  async authenticate(presentedKey: unknown): Promise<Caller> {
    if (!looksLikeApiKey(presentedKey)) throw new InvalidApiKeyError();
    const rows: KeyRow[] = await this.dataSource.query(
      `SELECT k.id AS api_key_id, k.account_id, k.last_used_at, a.plan, a.subscription_status
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [hashApiKey(presentedKey)],
    );
    const row = rows[0];
    if (!row) throw new InvalidApiKeyError();
    if (!hasApiAccess(row.plan, row.subscription_status)) throw new SubscriptionInactiveError();
    if (shouldTouchLastUsed(row.last_used_at, new Date())) this.touchLastUsed(row.api_key_id);
    return { accountId: row.account_id, apiKeyId: row.api_key_id };
  }

  /** Off the request path: a failure here must not fail the request. */
  private touchLastUsed(apiKeyId: string): void {
    this.dataSource
      .query(`UPDATE api_keys SET last_used_at = now() WHERE id = $1`, [apiKeyId])
      .catch((error: Error) => this.logger.warn(`could not record key use: ${error.message}`));
  }
}
