/**
 * The BullMQ prefix of queue `queueName`: the operator's REDIS_PREFIX (a plain word) with the queue's
 * name as a Redis Cluster hash tag, `pop:{webhook-dispatch}`. BullMQ's scripts touch several keys of a
 * queue at once (`<prefix>:<queue>:wait`, `:active`, `:meta`…), and on a Cluster every key of one script
 * must be in one slot: only the part between the braces is hashed, so each queue's keys share a slot,
 * while different queues hash to different slots and spread over the cluster's primaries. On one server
 * or behind Sentinel the braces are just characters: one key layout for every configuration. A queue
 * may be given another tag than its name (the delivery queues: src/modules/webhooks/delivery-queues.ts).
 */
export function queuePrefix(redisPrefix: string, queueName: string, hashTag = queueName): string {
  return `${redisPrefix}:{${hashTag}}`;
}
