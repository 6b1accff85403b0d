import { Injectable, Logger } from '@nestjs/common';
import { Sql } from '../../platform/database/sql';
import { Plan, SubscriptionStatus } from './account.entity';
import { ApiKeyKind } from './api-key.entity';
import { AccountsService } from './accounts.service';
import { shouldTouchLastUsed } from './auth.rules';

/** A live (unrevoked) key and what its account's plan allows. */
export interface KeyRecord {
  apiKeyId: string;
  /** Whose data the key acts on: the account's, or for a test key its sandbox's. */
  accountId: string;
  kind: ApiKeyKind;
  test: boolean;
  lastUsedAt: Date | null;
  plan: Plan;
  subscriptionStatus: SubscriptionStatus;
}

type KeyRow = Omit<KeyRecord, 'accountId'> & { liveAccountId: string; sandboxAccountId: string | null };

// Plan, subscription and revocation are the live account's and key's, for a test key too; only the data is the sandbox's.
const FIND_KEY = `SELECT k.id AS "apiKeyId", k.account_id AS "liveAccountId", s.id AS "sandboxAccountId", k.kind, k.test,
                         k.last_used_at AS "lastUsedAt", a.plan, a.subscription_status AS "subscriptionStatus"
                    FROM api_keys k JOIN accounts a ON a.id = k.account_id
                         LEFT JOIN accounts s ON k.test AND s.live_account_id = k.account_id
                   WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;

/**
 * Finds keys with one indexed read (a prepared statement), never a cache: revoking a key
 * or deactivating an account therefore applies to the very next request in every API process.
 */
@Injectable()
export class AuthService {
  private readonly logger = new Logger(AuthService.name);

  constructor(
    private readonly sql: Sql,
    private readonly accounts: AccountsService,
  ) {}

  async findKey(keyHash: Buffer): Promise<KeyRecord | undefined> {
    const [row] = await this.sql.prepared<KeyRow>('auth_find_test_key', FIND_KEY, [keyHash]);
    if (!row) return undefined;
    const { liveAccountId, sandboxAccountId, ...key } = row;
    // A test key never falls back to the live data: its sandbox is made if it is not there yet.
    const accountId = !key.test ? liveAccountId : (sandboxAccountId ?? (await this.accounts.ensureSandbox(liveAccountId)));
    return { ...key, accountId };
  }

  /** last_used_at is informational: written at most once a minute, off the request path; a failure must not fail the request. */
  noteUse(key: KeyRecord, now: Date): void {
    if (!shouldTouchLastUsed(key.lastUsedAt, now)) return;
    this.sql
      .prepared('auth_touch_key', `UPDATE api_keys SET last_used_at = now() WHERE id = $1`, [key.apiKeyId])
      .catch((error: Error) => this.logger.warn(`could not record key use: ${error.message}`));
  }
}
