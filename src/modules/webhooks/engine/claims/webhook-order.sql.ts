/**
 * The SQL of ordered subscriptions (issue 31), shared by the claims that may take a delivery in order.
 * A delivery is in its subscription's order while `order_tx` is set (dispatch sets it for an ordered
 * subscription: its event's writing transaction, so (order_tx, event_id) is its place in the events
 * feed). Being due and unclaimed is the caller's condition; these add when its turn has come.
 */

/**
 * The pending delivery `d` (in order) may be attempted now: nothing in its order is before it or in
 * flight, its event is in the feed (every transaction older than it has ended, as GET /v1/events
 * requires), and no event before it in the feed still waits for dispatch (whose delivery would come
 * first). Evaluated in the claiming statement itself: only a committed state lets a delivery go, and
 * the claim's UPDATE re-checks the row it takes, so concurrent claimers never take two at once.
 */
export function turnHasCome(d: string): string {
  return `${d}.order_tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
    AND NOT EXISTS (
      SELECT 1 FROM webhook_deliveries p
       WHERE p.subscription_id = ${d}.subscription_id AND p.order_tx IS NOT NULL AND p.status = 'pending' AND p.id <> ${d}.id
         AND ((p.order_tx, p.event_id) < (${d}.order_tx, ${d}.event_id) OR p.in_flight_until IS NOT NULL))
    AND NOT EXISTS (
      SELECT 1 FROM events e
       WHERE e.dispatched_at IS NULL AND e.account_id = ${d}.account_id
         AND (e.tx_id, e.id) < (${d}.order_tx::text::xid8, ${d}.event_id))`;
}

/** The head of subscription `$subscription`'s order: its lowest pending delivery in order (index webhook_deliveries_order_idx). */
export function orderHead(subscriptionParam: string): string {
  return `SELECT id FROM webhook_deliveries
           WHERE subscription_id = ${subscriptionParam} AND order_tx IS NOT NULL AND status = 'pending'
           ORDER BY order_tx, event_id LIMIT 1`;
}
