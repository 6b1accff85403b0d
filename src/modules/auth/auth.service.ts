import { Injectable, Logger } from '@nestjs/common';
import { Sql } from '../../platform/database/sql';
import { Plan, SubscriptionStatus } from './account.entity';
import { ApiKeyKind } from './api-key.entity';
import { shouldTouchLastUsed } from './auth.rules';

/** A live (unrevoked) key and what its account's plan allows. */
export interface KeyRecord {
  apiKeyId: string;
  accountId: string;
  kind: ApiKeyKind;
  lastUsedAt: Date | null;
  plan: Plan;
  subscriptionStatus: SubscriptionStatus;
}

const FIND_KEY = `SELECT k.id AS "apiKeyId", k.account_id AS "accountId", k.kind, k.last_used_at AS "lastUsedAt",
                         a.plan, a.subscription_status AS "subscriptionStatus"
                    FROM api_keys k JOIN accounts a ON a.id = k.account_id
                   WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;

/**
 * Finds keys with one indexed read (a prepared statement), never a cache: revoking a key
 * or deactivating an account therefore applies to the very next request in every API process.
 */
@Injectable()
export class AuthService {
  private readonly logger = new Logger(AuthService.name);

  constructor(private readonly sql: Sql) {}

  async findKey(keyHash: Buffer): Promise<KeyRecord | undefined> {
    const rows = await this.sql.prepared<KeyRecord>('auth_find_key', FIND_KEY, [keyHash]);
    return rows[0];
  }

  /** last_used_at is informational: written at most once a minute, off the request path; a failure must not fail the request. */
  noteUse(key: KeyRecord, now: Date): void {
    if (!shouldTouchLastUsed(key.lastUsedAt, now)) return;
    this.sql
      .prepared('auth_touch_key', `UPDATE api_keys SET last_used_at = now() WHERE id = $1`, [key.apiKeyId])
      .catch((error: Error) => this.logger.warn(`could not record key use: ${error.message}`));
  }
}
