import type { EntityManager } from 'typeorm';

/**
 * What a use case knows about the request that started it. Transport-free on purpose:
 * services, UnitOfWork and the worker share these types without depending on HTTP.
 */

/** Who is calling, set by the auth guard. */
export interface Caller {
  /** Whose data the request acts on: for a test key, the account's sandbox (docs/test-mode.md). */
  accountId: string;
  /** A test key's request: answered with X-Test-Mode: true; the provider-side test helpers answer it in every environment. */
  testMode: boolean;
  apiKeyId: string;
  /** Legacy keys (issued before self-serve keys) may also call the legacy API (spec 5.6). */
  keyKind: 'platform' | 'legacy';
}

/** An Idempotency-Key claimed for this request; the use case stores its response against it (Tx.respond). */
export interface IdempotencyClaim {
  accountId: string;
  key: string;
  lockToken: string;
  /** The status a replay answers with: the route's success status. */
  responseStatus: number;
  /** Set once the use case's transaction committed the stored response (Tx.respond): nothing left to release. */
  stored?: boolean;
}

export interface RequestContext {
  accountId: string;
  /** The request's x-request-id: the event envelope's apiRequestId. */
  requestId: string;
  /** The Idempotency-Key when sent, else a generated id: the event envelope's clientRequestId. */
  clientRequestId: string;
  idempotency?: IdempotencyClaim;
  /**
   * Work the caller adds to the end of the use case's transaction, given the use case's result: it
   * commits with the change or not at all (the legacy batch worker records each record's outcome so).
   */
  beforeCommit?: (manager: EntityManager, result: unknown) => Promise<void>;
}
