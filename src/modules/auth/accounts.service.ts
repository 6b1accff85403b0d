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
  /** A test key: it acts on the account's sandbox. */
  test: boolean;
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
      const key = await this.insertKey(manager, account.id, 'platform', { test: false });
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

  /**
   * `manager`: a transaction of the caller's, so that what it records about the key commits with it (the
   * console's audit list). `test`: a test key (Platform only), whose account's sandbox is made with it. A
   * sandbox holds no keys: its id is a 404 here, as an unknown account's.
   */
  async issueKey(
    accountId: string,
    kind: ApiKeyKind,
    options: { label?: string; manager?: EntityManager; test?: boolean } = {},
  ): Promise<IssuedKey> {
    if (options.test && kind !== 'platform') throw new RangeError('test keys are Platform keys');
    const run = async (manager: EntityManager) => {
      const exists = await manager.getRepository(AccountEntity).existsBy({ id: accountId, liveAccountId: IsNull() });
      if (!exists) throw new NotFoundError('Account', accountId);
      if (options.test) await this.ensureSandbox(accountId, manager);
      return this.insertKey(manager, accountId, kind, { label: options.label, test: options.test ?? false });
    };
    return options.manager ? run(options.manager) : this.dataSource.transaction(run);
  }

  /**
   * The live account's sandbox id, made on first use (the first test key, the console's first switch to test
   * mode): a row of its own, so every account-scoped table isolates its data with no change. Concurrent first
   * uses make one (the unique index on live_account_id).
   */
  async ensureSandbox(liveAccountId: string, manager: EntityManager = this.dataSource.manager): Promise<string> {
    const existing = await this.sandboxOf(liveAccountId, manager);
    if (existing) return existing;
    await manager.query(
      `INSERT INTO accounts (id, name, plan, subscription_status, live_account_id)
       SELECT $2, name || ' (test mode)', plan, subscription_status, id FROM accounts WHERE id = $1 AND live_account_id IS NULL
       ON CONFLICT (live_account_id) WHERE live_account_id IS NOT NULL DO NOTHING`,
      [liveAccountId, newId(AUTH_IDS.sandbox)],
    );
    const made = await this.sandboxOf(liveAccountId, manager);
    if (!made) throw new NotFoundError('Account', liveAccountId);
    return made;
  }

  /** The live account's sandbox id, or undefined while it has none. */
  async sandboxOf(liveAccountId: string, manager: EntityManager = this.dataSource.manager): Promise<string | undefined> {
    const sandbox = await manager.getRepository(AccountEntity).findOne({ select: { id: true }, where: { liveAccountId } });
    return sandbox?.id;
  }

  async findAccount(accountId: string): Promise<AccountEntity | null> {
    return this.dataSource.getRepository(AccountEntity).findOneBy({ id: accountId });
  }

  /** The account's keys, newest first, revoked ones included. */
  async listKeys(accountId: string): Promise<KeySummary[]> {
    const keys = await this.dataSource.getRepository(ApiKeyEntity).find({ where: { accountId }, order: { id: 'DESC' } });
    return keys.map(({ id, label, lastFour, kind, test, createdAt, lastUsedAt, revokedAt }) => ({
      apiKeyId: id,
      label,
      lastFour,
      kind,
      test,
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

  private async insertKey(
    manager: EntityManager,
    accountId: string,
    kind: ApiKeyKind,
    { label, test }: { label?: string; test: boolean },
  ): Promise<IssuedKey> {
    const apiKey = generateApiKey({ test });
    const id = newId(AUTH_IDS.apiKey);
    await manager
      .getRepository(ApiKeyEntity)
      .insert({ id, accountId, kind, test, keyHash: hashApiKey(apiKey), label: label ?? null, lastFour: apiKey.slice(-4) });
    return { apiKeyId: id, apiKey };
  }
}
