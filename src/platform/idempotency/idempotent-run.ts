import { randomUUID } from 'node:crypto';
import type { Logger } from '@nestjs/common';
import { IdempotencyClaim } from '../context/request-context';
import { isDatabaseUnavailable } from '../database/pg-errors';
import { IdempotencyStore } from './idempotency.store';

/** One request under an Idempotency-Key: whose key, what makes it "the same request", and the status a replay answers with. */
export interface IdempotentRequest {
  accountId: string;
  key: string;
  /** requestFingerprint(method, path, body) of the request (platform/http/idempotency.rules). */
  fingerprint: string;
  responseStatus: number;
  /** Names the request in the log line of a use case that stored no response (`POST /v1/bookings (request …)`). */
  describe: () => string;
}

export type IdempotentOutcome<T> = { replayed: true; status: number; body: unknown } | { replayed: false; value: T };

/**
 * The Idempotency-Key protocol, whatever the transport (the REST interceptor, the MCP tools): claims the
 * key, replays a stored response, or runs `work` with the claim (the use case stores its response with
 * Tx.respond); releases the claim when the work fails or stored nothing. docs/architecture.md, "Idempotency-Key".
 */
export async function runIdempotently<T>(
  store: IdempotencyStore,
  logger: Logger,
  request: IdempotentRequest,
  work: (claim: IdempotencyClaim) => Promise<T>,
): Promise<IdempotentOutcome<T>> {
  const { accountId, key, responseStatus } = request;
  const lockToken = randomUUID();
  let outcome;
  try {
    outcome = await store.claim(accountId, key, request.fingerprint, lockToken);
  } catch (error) {
    // A claim whose INSERT went unanswered (the database went away) may be in place: freed once it is back.
    if (isDatabaseUnavailable(error)) store.releaseLater({ accountId, key, lockToken, responseStatus });
    throw error;
  }
  if (outcome.kind === 'replay') return { replayed: true, status: outcome.status, body: outcome.body };

  const claim: IdempotencyClaim = { accountId, key, lockToken: outcome.lockToken, responseStatus };
  let value: T;
  try {
    value = await work(claim);
  } catch (error) {
    await releaseFailed(store, claim);
    throw error;
  }
  await releaseUnanswered(store, logger, claim, request);
  return { replayed: false, value };
}

/**
 * Frees the claim of a request that failed (the caller then fails with the request's own error). While the
 * database is unreachable the release is left to IdempotencyStore.releaseLater: the request may even
 * have committed (its acknowledgement lost), and then its stored response stays for the retry.
 */
async function releaseFailed(store: IdempotencyStore, claim: IdempotencyClaim): Promise<void> {
  try {
    await store.release(claim);
  } catch (releaseError) {
    if (!isDatabaseUnavailable(releaseError)) throw releaseError;
    store.releaseLater(claim);
  }
}

/**
 * A use case that succeeded without Tx.respond stored nothing to replay: the claim is freed at
 * once (rather than blocking the key with 409s until it counts as abandoned) and the bug logged.
 * The client still gets its answer; a retry with the key would run the use case again.
 */
async function releaseUnanswered(
  store: IdempotencyStore,
  logger: Logger,
  claim: IdempotencyClaim,
  request: IdempotentRequest,
): Promise<void> {
  try {
    if (await store.release(claim)) {
      logger.error(`${request.describe()} succeeded without Tx.respond: no response stored for its Idempotency-Key`);
    }
  } catch (error) {
    logger.warn(`could not check the Idempotency-Key claim after success: ${(error as Error).message}`);
  }
}
