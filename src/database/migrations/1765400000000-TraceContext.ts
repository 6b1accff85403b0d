import { SqlMigration } from '../migration-sql';

/**
 * Traces end to end (issue 32, docs/operations.md "Traces"):
 * - `events.traceparent`: the W3C trace context of the request that wrote the event (NULL with tracing
 *   off), written in its transaction, so the worker's spans for the event continue that trace;
 * - `webhook_subscriptions.trace_context` (an extension): send `traceparent` to the receiver with each attempt.
 */
export class TraceContext1765400000000 extends SqlMigration {
  name = 'TraceContext1765400000000';

  protected readonly upSql = [
    `ALTER TABLE events ADD COLUMN traceparent text`,
    `ALTER TABLE webhook_subscriptions ADD COLUMN trace_context boolean NOT NULL DEFAULT false`,
  ];

  protected readonly downSql = [
    `ALTER TABLE webhook_subscriptions DROP COLUMN trace_context`,
    `ALTER TABLE events DROP COLUMN traceparent`,
  ];
}
