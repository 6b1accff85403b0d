import { LRUCache } from 'lru-cache';

/** What a cache holds: anything but undefined and null (a miss is undefined). */
type Present = NonNullable<unknown>;

/**
 * The one bounded in-memory cache (signing secrets opened, URLs checked, events loaded, keys served):
 * at most `max` entries, the least recently used dropped first, so a full cache keeps what is in use
 * instead of starting over.
 */
export type BoundedCache<K extends Present, V extends Present> = LRUCache<K, V>;

export function boundedCache<K extends Present, V extends Present>(max: number): BoundedCache<K, V> {
  return new LRUCache<K, V>({ max });
}
