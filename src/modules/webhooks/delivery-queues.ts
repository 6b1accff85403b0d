import slotOf from 'cluster-key-slot';

/** The first delivery queue's name (the only one with WEBHOOK_DELIVERY_QUEUES=1, the default). */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';

/** Redis Cluster's slot count. */
const SLOTS = 16_384;

/** A delivery queue: its BullMQ name and the hash tag its keys live under (queuePrefix). */
export interface DeliveryQueueName {
  name: string;
  hashTag: string;
}

/**
 * The N delivery queues (WEBHOOK_DELIVERY_QUEUES): `webhook-delivery`, `webhook-delivery-1`, … On a
 * Redis Cluster each queue's keys share one slot, so one queue is one primary's work; N queues spread
 * deliveries over N primaries only if their slots lie on different ones. Queue names alone hash
 * anywhere (`webhook-delivery-1` and `-2` fall in the same third of the slots), so each queue's hash
 * tag is chosen: the first of `<name>`, `<name>.1`, `<name>.2`… whose slot lies in the i-th N-th of
 * the slot range, the way a cluster of N primaries (or a multiple of N) splits its slots evenly. The
 * choice is a pure function of N: every process finds the same tags.
 */
export function deliveryQueueNames(count: number): DeliveryQueueName[] {
  return Array.from({ length: count }, (_, index) => {
    const name = index === 0 ? WEBHOOK_DELIVERY_QUEUE : `${WEBHOOK_DELIVERY_QUEUE}-${index}`;
    const low = Math.floor((index * SLOTS) / count);
    const high = Math.floor(((index + 1) * SLOTS) / count);
    for (let k = 0; ; k++) {
      const hashTag = k === 0 ? name : `${name}.${k}`;
      const slot = slotOf(hashTag);
      if (slot >= low && slot < high) return { name, hashTag };
    }
  });
}

/**
 * Which of `count` delivery queues carries a subscription's jobs: always the same one for a subscription
 * (an ordered subscription's attempts and wake-ups never race across queues, and the sweep finds a job
 * where it was added). CRC16 of the id, as Redis hashes keys: cheap, stable across processes and releases.
 */
export function deliveryQueueIndex(subscriptionId: string, count: number): number {
  return count === 1 ? 0 : slotOf(subscriptionId) % count;
}
