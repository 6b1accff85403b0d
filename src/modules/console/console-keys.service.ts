import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError, ValidationError } from '../../platform/errors/domain-error';
import { AccountsService, IssuedKey, KeySummary } from '../auth/accounts.service';
import { hasApiAccess } from '../auth/auth.rules';
import { AuditEntry, ConsoleAuditRepository } from './console-audit.repository';
import { ConsoleSession } from './console-sessions.repository';
import { CONSOLE_LIMITS } from './console.rules';
import { ApiAccessPausedError } from './console.errors';

/** How many audit entries the keys page shows. */
const AUDIT_SHOWN = 50;

/**
 * The "API and AI assistants" page (spec 5.4-5.6): the account holder's own Platform keys. Keys are
 * issued and revoked by AccountsService, the same path as the operator's CLI; each change and its audit
 * entry commit in one transaction.
 */
@Injectable()
export class ConsoleKeysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountsService,
    private readonly audit: ConsoleAuditRepository,
  ) {}

  async overview(accountId: string): Promise<{ keys: KeySummary[]; audit: AuditEntry[] }> {
    const [keys, audit] = await Promise.all([this.accounts.listKeys(accountId), this.audit.latest(accountId, AUDIT_SHOWN)]);
    return { keys, audit };
  }

  /**
   * A Platform key (never a legacy one: spec 5.6), live or test (docs/test-mode.md), for an account whose plan and subscription include the
   * API (spec 5.4: a key that could not call anything is not issued).
   */
  async create(session: ConsoleSession, rawLabel: unknown, test = false): Promise<IssuedKey & { label: string; test: boolean }> {
    const label = typeof rawLabel === 'string' ? rawLabel.trim() : '';
    if (label.length < 1 || label.length > CONSOLE_LIMITS.keyLabelMax) {
      throw ValidationError.field('#/label', `label must be 1 to ${CONSOLE_LIMITS.keyLabelMax} characters`);
    }
    const account = await this.accounts.findAccount(session.accountId);
    if (!account) throw new NotFoundError('Account', session.accountId);
    if (!hasApiAccess(account.plan, account.subscriptionStatus)) {
      throw new ApiAccessPausedError('Keys cannot be created');
    }
    const issued = await this.dataSource.transaction(async (manager) => {
      const key = await this.accounts.issueKey(session.accountId, 'platform', { label, manager, test });
      await this.audit.insert(manager, session.accountId, { action: 'key.created', apiKeyId: key.apiKeyId, label, sessionId: session.id });
      return key;
    });
    return { ...issued, label, test };
  }

  /** Revokes one of the account's keys (legacy ones too); another account's key is a 404. Revoking twice records once. */
  async revoke(session: ConsoleSession, apiKeyId: string): Promise<KeySummary> {
    const key = await this.find(session.accountId, apiKeyId);
    if (!key.revokedAt) {
      await this.dataSource.transaction(async (manager) => {
        await this.accounts.revokeKey(apiKeyId, { accountId: session.accountId, manager });
        await this.audit.insert(manager, session.accountId, {
          action: 'key.revoked',
          apiKeyId,
          label: key.label,
          sessionId: session.id,
        });
      });
    }
    return this.find(session.accountId, apiKeyId);
  }

  async find(accountId: string, apiKeyId: string): Promise<KeySummary> {
    const key = (await this.accounts.listKeys(accountId)).find((k) => k.apiKeyId === apiKeyId);
    if (!key) throw new NotFoundError('API key', apiKeyId);
    return key;
  }
}
