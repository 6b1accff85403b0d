import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { NotFoundError } from '../../platform/errors/domain-error';
import { newId } from '../../platform/ids/ids';
import { AccountEntity, Plan, SubscriptionStatus } from './account.entity';
import { ApiKeyEntity, ApiKeyKind } from './api-key.entity';
import { generateApiKey, hashApiKey } from './auth.rules';
import { AUTH_IDS } from './auth.ids';

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

/** A key as its holder sees it (the console's "API and AI assistants" page): never the key or its hash. */
export interface KeySummary {
  apiKeyId: string;
  label: string | null;
  lastFour: string | null;
  kind: ApiKeyKind;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
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
        id: newId(AUTH_IDS.account),
        name: input.name,
        plan: input.plan,
        subscriptionStatus: input.active ? 'active' : 'inactive',
      });
      await manager.insert(AccountEntity, account);
      const key = await this.insertKey(manager, account.id, 'platform');
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

  /** `manager`: a transaction of the caller's, so that what it records about the key commits with it (the console's audit list). */
  async issueKey(accountId: string, kind: ApiKeyKind, options: { label?: string; manager?: EntityManager } = {}): Promise<IssuedKey> {
    const manager = options.manager ?? this.dataSource.manager;
    const exists = await manager.getRepository(AccountEntity).existsBy({ id: accountId });
    if (!exists) throw new NotFoundError('Account', accountId);
    return this.insertKey(manager, accountId, kind, options.label);
  }

  async findAccount(accountId: string): Promise<AccountEntity | null> {
    return this.dataSource.getRepository(AccountEntity).findOneBy({ id: accountId });
  }

  /** The account's keys, newest first, revoked ones included. */
  async listKeys(accountId: string): Promise<KeySummary[]> {
    const keys = await this.dataSource.getRepository(ApiKeyEntity).find({ where: { accountId }, order: { id: 'DESC' } });
    return keys.map(({ id, label, lastFour, kind, createdAt, lastUsedAt, revokedAt }) => ({
      apiKeyId: id,
      label,
      lastFour,
      kind,
      createdAt,
      lastUsedAt,
      revokedAt,
    }));
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

  /**
   * Revokes the key (idempotent: a revoked key keeps its first revocation time). AuthService reads keys
   * uncached, so the very next request with it is refused in every API process. `accountId` scopes it to
   * one account (the console: another account's key is a 404); `manager` as for issueKey.
   */
  async revokeKey(
    apiKeyId: string,
    options: { accountId?: string; manager?: EntityManager } = {},
  ): Promise<{ apiKeyId: string; revokedAt: string }> {
    const keys = (options.manager ?? this.dataSource.manager).getRepository(ApiKeyEntity);
    const scope = { id: apiKeyId, ...(options.accountId === undefined ? {} : { accountId: options.accountId }) };
    await keys.update({ ...scope, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    const key = await keys.findOneBy(scope);
    if (!key?.revokedAt) throw new NotFoundError('API key', apiKeyId);
    return { apiKeyId, revokedAt: key.revokedAt.toISOString() };
  }

  private async insertKey(manager: EntityManager, accountId: string, kind: ApiKeyKind, label?: string): Promise<IssuedKey> {
    const apiKey = generateApiKey();
    const id = newId(AUTH_IDS.apiKey);
    await manager
      .getRepository(ApiKeyEntity)
      .insert({ id, accountId, kind, keyHash: hashApiKey(apiKey), label: label ?? null, lastFour: apiKey.slice(-4) });
    return { apiKeyId: id, apiKey };
  }
}
