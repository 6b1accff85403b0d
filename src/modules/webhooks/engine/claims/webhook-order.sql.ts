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
 * the claim's UPDATE re-checks the row it takes, so concurrent claimers never take two at once. Each test
 * is one index probe (webhook_deliveries_order_idx's range before it, webhook_deliveries_order_in_flight_idx),
 * never a scan of the backlog behind it: a claim costs the same with 10 or 10,000 waiting.
 */
export function turnHasCome(d: string, ended?: string): string {
  // `ended`: the SQL of a delivery the same statement records as ended (its row, in the statement's snapshot, still
  // pending and in flight): the claim of the next one in its order looks past it.
  const past = ended ? ` AND p.id <> ${ended}` : '';
  const pastInFlight = ended ? ` AND f.id <> ${ended}` : '';
  return `${d}.order_tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
    AND NOT EXISTS (
      SELECT 1 FROM webhook_deliveries p
       WHERE p.subscription_id = ${d}.subscription_id AND p.order_tx IS NOT NULL AND p.status = 'pending'
         AND (p.order_tx, p.event_id) < (${d}.order_tx, ${d}.event_id)${past})
    AND NOT EXISTS (
      SELECT 1 FROM webhook_deliveries f
       WHERE f.subscription_id = ${d}.subscription_id AND f.order_tx IS NOT NULL AND f.in_flight_until IS NOT NULL
         AND f.status = 'pending' AND f.id <> ${d}.id${pastInFlight})
    AND NOT EXISTS (
      SELECT 1 FROM events e
       WHERE e.dispatched_at IS NULL AND e.account_id = ${d}.account_id
         AND (e.tx_id, e.id) < (${d}.order_tx::text::xid8, ${d}.event_id))`;
}

/**
 * The head of subscription `$subscription`'s order: its lowest pending delivery in order (index
 * webhook_deliveries_order_idx). `ended`: a delivery the same statement records as ended, passed over.
 */
export function orderHead(subscriptionParam: string, ended?: string): string {
  return `SELECT id FROM webhook_deliveries
           WHERE subscription_id = ${subscriptionParam} AND order_tx IS NOT NULL AND status = 'pending'${ended ? ` AND id <> ${ended}` : ''}
           ORDER BY order_tx, event_id LIMIT 1`;
}
