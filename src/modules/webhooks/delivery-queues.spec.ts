import slotOf from 'cluster-key-slot';
import { deliveryQueueIndex, deliveryQueueNames, WEBHOOK_DELIVERY_QUEUE } from './delivery-queues';

describe('deliveryQueueNames', () => {
  it('is the one queue of today by default, under its own name as tag', () => {
    expect(deliveryQueueNames(1)).toEqual([{ name: WEBHOOK_DELIVERY_QUEUE, hashTag: WEBHOOK_DELIVERY_QUEUE }]);
  });

  it.each([2, 3, 4, 6, 8])('puts each of %i queues in its own N-th of the slots (one per primary of an evenly split cluster)', (count) => {
    const queues = deliveryQueueNames(count);
    expect(queues.map((q) => q.name)).toEqual(
      Array.from({ length: count }, (_, i) => (i === 0 ? 'webhook-delivery' : `webhook-delivery-${i}`)),
    );
    queues.forEach(({ hashTag }, i) => expect(Math.floor((slotOf(hashTag) * count) / 16384)).toBe(i));
  });

  it('keeps the queue names where the tag differs', () => {
    // `webhook-delivery-1` and `-2` hash into the same third: the second gets a chosen tag.
    expect(Math.floor((slotOf('webhook-delivery-1') * 3) / 16384)).toBe(Math.floor((slotOf('webhook-delivery-2') * 3) / 16384));
    expect(deliveryQueueNames(3)[2].hashTag).not.toBe('webhook-delivery-2');
  });
});

describe('deliveryQueueIndex', () => {
  it('always names the same queue for a subscription, and spreads subscriptions over all of them', () => {
    const ids = Array.from({ length: 300 }, (_, i) => `whs_01J${String(i).padStart(23, '0')}`);
    expect(ids.map((id) => deliveryQueueIndex(id, 3))).toEqual(ids.map((id) => deliveryQueueIndex(id, 3)));
    const counts = [0, 0, 0];
    for (const id of ids) counts[deliveryQueueIndex(id, 3)]++;
    for (const count of counts) expect(count).toBeGreaterThan(50);
    expect(ids.every((id) => deliveryQueueIndex(id, 1) === 0)).toBe(true);
  });
});
