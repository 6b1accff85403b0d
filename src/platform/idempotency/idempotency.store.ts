import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { ConflictError, DomainError } from '../errors/domain-error';
import { IdempotencyClaim } from '../context/request-context';

export type ClaimOutcome = { kind: 'claimed'; lockToken: string } | { kind: 'replay'; status: number; body: unknown };

/** An in-progress claim older than this is taken to be abandoned (its process died). */
const ABANDONED_AFTER_SECONDS = 60;
/** How often claims that could not be released (the database was down) are tried again. */
const RELEASE_RETRY_MS = 1_000;
/**
 * The Retry-After of a 409 idempotencyKeyInProgress: the first request is usually done within a second,
 * and a claim left by a database outage is released within RELEASE_RETRY_MS of the database's return.
 * Without it clients retry at once, and after an outage every waiting client's retries at once are a
 * load of their own on an API that is catching up.
 */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

/**
 * Idempotency records in PostgreSQL. A key is claimed in its own short statement
 * (so a concurrent duplicate sees it at once), completed inside the transaction that
 * creates the resource (Tx.respond, so the response is stored exactly when the resource
 * is), and released when the request fails or stored no response.
 */
@Injectable()
export class IdempotencyStore implements OnModuleDestroy {
  /** Claims to release once the database answers again, by lock token, with when to give up on each. */
  private readonly releasesDue = new Map<string, { claim: IdempotencyClaim; until: number }>();
  private releaseTimer: NodeJS.Timeout | undefined;
  private releasing = false;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `lockToken` is the caller's when it must be able to release a claim whose INSERT had no answer. */
  async claim(accountId: string, key: string, fingerprint: string, lockToken: string = randomUUID()): Promise<ClaimOutcome> {
    const claimed: unknown[] = await this.dataSource.query(
      `INSERT INTO idempotency_keys (account_id, key, fingerprint, lock_token, locked_at, expires_at)
       VALUES ($1, $2, $3, $4, now(), now() + make_interval(hours => $5))
       ON CONFLICT (account_id, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, lock_token = EXCLUDED.lock_token, locked_at = now(),
             expires_at = EXCLUDED.expires_at, response_status = NULL, response_body = NULL, completed_at = NULL
       WHERE idempotency_keys.expires_at < now()
          OR (idempotency_keys.completed_at IS NULL AND idempotency_keys.locked_at < now() - make_interval(secs => $6))
       RETURNING 1`,
      [accountId, key, fingerprint, lockToken, this.config.idempotencyTtlHours, ABANDONED_AFTER_SECONDS],
    );
    if (claimed.length > 0) return { kind: 'claimed', lockToken };

    const [existing] = await this.dataSource.query(
      `SELECT fingerprint, response_status, response_body, completed_at FROM idempotency_keys WHERE account_id = $1 AND key = $2`,
      [accountId, key],
    );
    if (!existing) return this.claim(accountId, key, fingerprint, lockToken); // released between our two statements
    if (existing.fingerprint !== fingerprint) {
      throw new DomainError(
        'unprocessable',
        'idempotencyKeyReused',
        'This Idempotency-Key was already used with a different request; use a new key for a new request',
      );
    }
    if (!existing.completed_at) {
      throw new DomainError(
        'conflict',
        'idempotencyKeyInProgress',
        'A request with this Idempotency-Key is still being processed; retry after it completes',
        {},
        { 'Retry-After': String(IN_PROGRESS_RETRY_AFTER_SECONDS) },
      );
    }
    return { kind: 'replay', status: existing.response_status, body: existing.response_body };
  }

  /** Called inside the use case's transaction (through Tx.respond): the stored response commits with the resource. */
  async complete(manager: EntityManager, claim: IdempotencyClaim, body: unknown): Promise<void> {
    const updated: [unknown[], number] = await manager.query(
      `UPDATE idempotency_keys SET response_status = $4, response_body = $5, completed_at = now()
        WHERE account_id = $1 AND key = $2 AND lock_token = $3 AND completed_at IS NULL`,
      [claim.accountId, claim.key, claim.lockToken, claim.responseStatus, JSON.stringify(body ?? null)],
    );
    if (updated[1] !== 1) throw new ConflictError('The Idempotency-Key was taken over by another request; nothing was changed');
  }

  /**
   * Frees a claim that holds no stored response, so the client may retry with the key; a completed
   * record is never touched. True when a claim was freed.
   */
  async release(claim: IdempotencyClaim): Promise<boolean> {
    const deleted: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND lock_token = $3 AND completed_at IS NULL`,
      [claim.accountId, claim.key, claim.lockToken],
    );
    return deleted[1] === 1;
  }

  /**
   * Releases `claim` once the database answers again: its request failed while the database was
   * unreachable, so neither the claim's INSERT nor its release may have happened. Unreleased, the key
   * would answer 409 idempotencyKeyInProgress until the claim counts as abandoned; released, a retry
   * runs the request, or replays it when its transaction did commit (a completed record stays).
   * Tried every second until it works or the claim counts as abandoned anyway.
   */
  releaseLater(claim: IdempotencyClaim): void {
    this.releasesDue.set(claim.lockToken, { claim, until: Date.now() + ABANDONED_AFTER_SECONDS * 1000 });
    this.releaseTimer ??= setInterval(() => void this.releaseDue(), RELEASE_RETRY_MS).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.releaseTimer);
  }

  private async releaseDue(): Promise<void> {
    if (this.releasing) return;
    this.releasing = true;
    for (const [token, { claim, until }] of this.releasesDue) {
      if (Date.now() > until) {
        this.releasesDue.delete(token);
        continue;
      }
      try {
        await this.release(claim);
        this.releasesDue.delete(token);
      } catch {
        break; // the database is still down: every release would fail alike
      }
    }
    this.releasing = false;
    if (this.releasesDue.size === 0) {
      clearInterval(this.releaseTimer);
      this.releaseTimer = undefined;
    }
  }

  /** Retention: expired records are only kept for replays, so they can go. */
  async deleteExpired(batchSize = 1000): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at < now() LIMIT $1)`,
      [batchSize],
    );
    return result[1];
  }
}
