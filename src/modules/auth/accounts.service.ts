import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, Repository } from 'typeorm';
import { NotFoundError } from '../../platform/errors/domain-error';
import { newId } from '../../platform/ids/ids';
import { AccountEntity, Plan, SubscriptionStatus } from './account.entity';
import { ApiKeyEntity, ApiKeyKind } from './api-key.entity';
import { generateApiKey, hashApiKey } from './auth.rules';

/** The window of `accounts:legacy-usage`. */
export const LEGACY_USAGE_DAYS = 30;

export interface LegacyUsage {
  accountId: string;
  usedLegacyKeyInLast30Days: boolean;
  /** The latest use of any of the account's legacy keys (to the minute), null if never. */
  lastLegacyUseAt: string | null;
  /** Legacy keys not revoked. */
  liveLegacyKeys: number;
}

export interface IssuedKey {
  apiKeyId: string;
  /** The secret key: returned once, stored only as a hash. */
  apiKey: string;
}

/** Account and key administration (the admin CLI; the web app in production). */
@Injectable()
export class AccountsService {
  constructor(private readonly dataSource: DataSource) {}

  async createAccount(input: { name: string; plan: Plan; active: boolean }): Promise<{ accountId: string } & IssuedKey> {
    return this.dataSource.transaction(async (manager) => {
      const account = manager.create(AccountEntity, {
        id: newId('account'),
        name: input.name,
        plan: input.plan,
        subscriptionStatus: input.active ? 'active' : 'inactive',
      });
      await manager.insert(AccountEntity, account);
      const key = await this.insertKey(manager.getRepository(ApiKeyEntity), account.id, 'platform');
      return { accountId: account.id, ...key };
    });
  }

  async setSubscriptionStatus(
    accountId: string,
    status: SubscriptionStatus,
  ): Promise<{ accountId: string; subscriptionStatus: SubscriptionStatus }> {
    const result = await this.dataSource
      .getRepository(AccountEntity)
      .update({ id: accountId }, { subscriptionStatus: status, updatedAt: () => 'now()' });
    if (!result.affected) throw new NotFoundError('Account', accountId);
    return { accountId, subscriptionStatus: status };
  }

  async issueKey(accountId: string, kind: ApiKeyKind): Promise<IssuedKey> {
    const exists = await this.dataSource.getRepository(AccountEntity).existsBy({ id: accountId });
    if (!exists) throw new NotFoundError('Account', accountId);
    return this.insertKey(this.dataSource.getRepository(ApiKeyEntity), accountId, kind);
  }

  /**
   * Whether the account called with a legacy key in the last `days` days (from the keys' last_used_at,
   * written at most once a minute), revoked keys included: who to remind before the legacy API's sunset.
   */
  async legacyUsage(accountId: string, days = LEGACY_USAGE_DAYS): Promise<LegacyUsage> {
    const exists = await this.dataSource.getRepository(AccountEntity).existsBy({ id: accountId });
    if (!exists) throw new NotFoundError('Account', accountId);
    const [row] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE revoked_at IS NULL)::int AS live, max(last_used_at) AS last_used_at,
              COALESCE(bool_or(last_used_at > now() - make_interval(days => $2)), false) AS recent
         FROM api_keys WHERE account_id = $1 AND kind = 'legacy'`,
      [accountId, days],
    );
    return {
      accountId,
      usedLegacyKeyInLast30Days: row.recent,
      lastLegacyUseAt: row.last_used_at ? new Date(row.last_used_at).toISOString() : null,
      liveLegacyKeys: row.live,
    };
  }

  async revokeKey(apiKeyId: string): Promise<{ apiKeyId: string; revokedAt: string }> {
    const keys = this.dataSource.getRepository(ApiKeyEntity);
    await keys.update({ id: apiKeyId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    const key = await keys.findOneBy({ id: apiKeyId });
    if (!key?.revokedAt) throw new NotFoundError('API key', apiKeyId);
    return { apiKeyId, revokedAt: key.revokedAt.toISOString() };
  }

  private async insertKey(repo: Repository<ApiKeyEntity>, accountId: string, kind: ApiKeyKind): Promise<IssuedKey> {
    const apiKey = generateApiKey();
    const id = newId('apiKey');
    await repo.insert({ id, accountId, kind, keyHash: hashApiKey(apiKey) });
    return { apiKeyId: id, apiKey };
  }
}
