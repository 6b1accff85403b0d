import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, Repository } from 'typeorm';
import { NotFoundError } from '../../platform/errors/domain-error';
import { newId } from '../../platform/ids/ids';
import { AccountEntity, Plan, SubscriptionStatus } from './account.entity';
import { ApiKeyEntity, ApiKeyKind } from './api-key.entity';
import { generateApiKey, hashApiKey } from './auth.rules';

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
