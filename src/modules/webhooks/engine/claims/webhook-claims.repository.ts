import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SelectedRow } from '../../../../platform/database/columns';
import { Sql } from '../../../../platform/database/sql';
import { DeliveryRow, deliveryReturningList, deliveryRowSelectList, toDeliveryRow } from '../../webhook-delivery.row';
import { orderHead, turnHasCome } from './webhook-order.sql';

/** The batch loop is alive: the sweep leaves this subscription's due deliveries to it until the lease ends. */
function LEASE(account: string, subscription: string, leaseMs: string): string {
  return `lease AS (
         UPDATE webhook_subscriptions SET batch_lease_until = now() + make_interval(secs => ${leaseMs}::float8 / 1000)
          WHERE id = ${subscription} AND account_id = ${account}
            AND (batch_lease_until IS NULL OR batch_lease_until < now() + make_interval(secs => ${leaseMs}::float8 / 2000))
       )`;
}

/** Where the head of an ordered subscription stands when none of its order was claimed (see headState). */
export type HeadState = 'none' | 'in_flight' | 'not_due' | 'blocked';

/**
 * An attempt's claim in webhook_deliveries (so each attempt goes out once): taken for sending with the
 * delivery and its subscription loaded, renewed while the attempt runs, given back when it is not sent,
 * or found lost when it ran out unrecorded. The record that settles it is WebhookAttemptsRepository's.
 * Statements that join a batch of ids also say `id = ANY(<the ids>)`: webhook_deliveries is partitioned
 * by id, and only a condition on the id itself lets the planner read just the partitions holding them.
 * The statements that run per attempt are prepared once per connection (Sql.prepared): planning them over
 * every partition each time cost about as much as running them.
 */
@Injectable()
export class WebhookClaimsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sql: Sql,
  ) {}

  /**
   * Claims attempts and loads them for sending, in one statement for a whole batch: each delivery
   * still pending at the expected attempt_count and not already claimed is marked in flight until
   * `leaseMs` from now (its worker renews the claim while the attempt runs) and comes back with its
   * subscription; undefined for one not claimed (gone, finished, a stale or second run of the attempt:
   * so no attempt is sent twice). A delivery in an ordered subscription's order is claimed only when its
   * turn has come (webhook-order.sql.ts): a job for one still waiting gets nothing. The service adds the
   * events (EventsService.findForDelivery).
   */
  async claimForSending(
    inputs: Array<{ id: string; expectedAttemptCount: number }>,
    leaseMs: number,
  ): Promise<Array<DeliveryRow | undefined>> {
    const rows = await this.sql.prepared<SelectedRow>(
      'webhook_claim_for_sending',
      `WITH claimed AS (
         UPDATE webhook_deliveries d
            SET in_flight_since = now(), in_flight_until = now() + make_interval(secs => $3::float8 / 1000)
           FROM unnest($1::text[], $2::int[]) AS i(id, expected)
          WHERE d.id = i.id AND d.id = ANY($1::text[]) AND d.status = 'pending' AND d.attempt_count = i.expected AND d.in_flight_until IS NULL
            AND (d.order_tx IS NULL OR (${turnHasCome('d')}))
         RETURNING ${deliveryReturningList('d')}
       )
       SELECT ${deliveryRowSelectList('c', 's')}
         FROM claimed c
         JOIN webhook_subscriptions s ON s.id = c.subscription_id AND s.account_id = c.account_id`,
      [inputs.map((input) => input.id), inputs.map((input) => input.expectedAttemptCount), leaseMs],
    );
    // A second input for the same attempt in one batch gets nothing: the first one holds the claim.
    const claimed = new Map(rows.map(toDeliveryRow).map((row) => [`${row.id}.${row.attemptCount}`, row]));
    return inputs.map((input) => {
      const key = `${input.id}.${input.expectedAttemptCount}`;
      const row = claimed.get(key);
      claimed.delete(key);
      return row;
    });
  }

  /**
   * A subscription's batch: claims, in ONE statement, up to `limit` of its due attempts (pending, due by
   * next_retry_at, not claimed) with ids from `fromId` on, oldest first, until `leaseMs` from now, and
   * loads them with the subscription. `FOR UPDATE SKIP LOCKED`: workers claiming the same subscription at
   * once take disjoint rows and never wait on each other. The id range keeps the scan to the partitions
   * (and the stretch of the delivery log index) holding the wake-up's deliveries and newer ones.
   * Deliveries in an order are never in a batch: with `ordered`, the claim is the head of the
   * subscription's order alone, at its turn (claimHead).
   */
  async claimDue(
    subscription: { accountId: string; id: string },
    fromId: string,
    limit: number,
    leaseMs: number,
    ordered = false,
  ): Promise<DeliveryRow[]> {
    if (ordered) return this.claimHead(subscription, leaseMs);
    const rows = await this.sql.prepared<SelectedRow>(
      'webhook_claim_due',
      `WITH due AS (
         SELECT id FROM webhook_deliveries
          WHERE account_id = $1 AND subscription_id = $2 AND id >= $3 AND status = 'pending'
            AND in_flight_until IS NULL AND next_retry_at <= now() AND order_tx IS NULL
          ORDER BY id LIMIT $4
            FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d
            SET in_flight_since = now(), in_flight_until = now() + make_interval(secs => $5::float8 / 1000)
           FROM due WHERE d.id = due.id AND d.id >= $3
         RETURNING ${deliveryReturningList('d')}
       ), ${LEASE('$1', '$2', '$5')}
       SELECT ${deliveryRowSelectList('c', 's')}
         FROM claimed c
         JOIN webhook_subscriptions s ON s.id = c.subscription_id AND s.account_id = c.account_id
        ORDER BY c.id`,
      [subscription.accountId, subscription.id, fromId, limit, leaseMs],
    );
    return rows.map(toDeliveryRow);
  }

  /**
   * An ordered subscription's batch: the head of its order when its turn has come (webhook-order.sql.ts),
   * alone. Its deliveries outside the order (test deliveries, manual retries, replays) go by their own
   * jobs; those a toggle left unordered by a wake-up saying so (a plain claim). This starts an order's
   * chain (a wake-up, a head that was not due or blocked): from there on the record of each head claims the
   * next (WebhookAttemptsRepository.recordAttempts). (A batch's scan from `fromId` would walk the whole
   * backlog waiting in order, every claim.)
   */
  private async claimHead(subscription: { accountId: string; id: string }, leaseMs: number): Promise<DeliveryRow[]> {
    const rows = await this.sql.prepared<SelectedRow>(
      'webhook_claim_order_head',
      `WITH claimed AS (
         UPDATE webhook_deliveries d
            SET in_flight_since = now(), in_flight_until = now() + make_interval(secs => $3::float8 / 1000)
           FROM (${orderHead('$2')}) x
          WHERE d.id = x.id AND d.account_id = $1 AND d.status = 'pending' AND d.in_flight_until IS NULL AND d.next_retry_at <= now()
            AND ${turnHasCome('d')}
         RETURNING ${deliveryReturningList('d')}
       ), ${LEASE('$1', '$2', '$3')}
       SELECT ${deliveryRowSelectList('c', 's')}
         FROM claimed c
         JOIN webhook_subscriptions s ON s.id = c.subscription_id AND s.account_id = c.account_id`,
      [subscription.accountId, subscription.id, leaseMs],
    );
    return rows.map(toDeliveryRow);
  }

  /**
   * Why an ordered subscription's head was not claimed: there is none, it is in flight (its end wakes the
   * next), its retry is not due (its job comes), or it is blocked for a moment (its event not in the feed
   * yet, or one before it not dispatched yet: the caller looks again shortly).
   */
  async headState(subscriptionId: string): Promise<HeadState> {
    const [row] = await this.sql.prepared<{ state: HeadState }>(
      'webhook_order_head_state',
      `SELECT CASE WHEN d.in_flight_until IS NOT NULL THEN 'in_flight' WHEN d.next_retry_at > now() THEN 'not_due' ELSE 'blocked' END AS state
         FROM webhook_deliveries d WHERE d.id = (${orderHead('$1')})`,
      [subscriptionId],
    );
    return row?.state ?? 'none';
  }

  /** The events of the next `limit` pending deliveries in a subscription's order, in order (index webhook_deliveries_order_idx). */
  async eventsAhead(subscriptionId: string, limit: number): Promise<Array<{ accountId: string; id: string }>> {
    const rows = await this.sql.prepared<{ account_id: string; event_id: string }>(
      'webhook_order_events_ahead',
      `SELECT account_id, event_id FROM webhook_deliveries
        WHERE subscription_id = $1 AND order_tx IS NOT NULL AND status = 'pending'
        ORDER BY order_tx, event_id LIMIT $2`,
      [subscriptionId, limit],
    );
    return rows.map((row) => ({ accountId: row.account_id, id: row.event_id }));
  }

  /** Extends this worker's claims on attempts still running; one statement for all of them. */
  async renewClaims(ids: string[], leaseMs: number): Promise<void> {
    await this.sql.prepared(
      'webhook_renew_claims',
      `UPDATE webhook_deliveries SET in_flight_until = now() + make_interval(secs => $2::float8 / 1000)
        WHERE id = ANY($1::text[]) AND in_flight_until IS NOT NULL`,
      [ids, leaseMs],
    );
  }

  /** Gives up claims taken for attempts that were then not sent (their job is parked, or cannot be signed). */
  async releaseClaims(inputs: Array<{ id: string; expectedAttemptCount: number }>): Promise<void> {
    await this.sql.prepared(
      'webhook_release_claims',
      `UPDATE webhook_deliveries d SET in_flight_since = NULL, in_flight_until = NULL
         FROM unnest($1::text[], $2::int[]) AS i(id, expected)
        WHERE d.id = i.id AND d.id = ANY($1::text[]) AND d.status = 'pending' AND d.attempt_count = i.expected`,
      [inputs.map((input) => input.id), inputs.map((input) => input.expectedAttemptCount)],
    );
  }

  /** Attempts whose claim ran out with nobody recording them (their worker died), oldest first. */
  async lostAttempts(limit: number, accountIds?: string[]): Promise<Array<{ id: string; attemptCount: number; inFlightSince: Date }>> {
    const rows = await this.dataSource.query(
      `SELECT id, attempt_count, in_flight_since FROM webhook_deliveries
        WHERE in_flight_until < now() AND status = 'pending' AND ($2::text[] IS NULL OR account_id = ANY($2::text[]))
        ORDER BY in_flight_until LIMIT $1`,
      [limit, accountIds ?? null],
    );
    return rows.map((r: Record<string, unknown>) => ({
      id: r.id as string,
      attemptCount: r.attempt_count as number,
      inFlightSince: r.in_flight_since as Date,
    }));
  }

  /**
   * Deliveries with their subscription, in the order asked; undefined for one that is gone (its
   * subscription was deleted: cascade). One query for a whole batch (the attempts not claimed,
   * to say why; the lost ones, to record them).
   */
  async loadDeliveries(ids: string[]): Promise<Array<DeliveryRow | undefined>> {
    const rows = await this.dataSource.query(
      `SELECT ${deliveryRowSelectList('d', 's')}
         FROM webhook_deliveries d
         JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.account_id = d.account_id
        WHERE d.id = ANY($1::text[])`,
      [ids],
    );
    const byId = new Map<string, DeliveryRow>((rows as SelectedRow[]).map(toDeliveryRow).map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id));
  }
}
