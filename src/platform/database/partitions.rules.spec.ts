import { idBoundAt, idKind, newIdAt } from '../ids/ids';
import { expiredPartitions, parsePartitionName, partitionAt, partitionsCovering, PARTITION_SPAN_MS, spanStart } from './partitions.rules';

/** The event log's ids, as the events module declares them (platform code takes kinds as parameters). */
const EVENT_KIND = idKind('evt');

describe('time partitions', () => {
  it('starts each span on a Monday at 00:00 UTC', () => {
    expect(spanStart(new Date('2026-11-27T07:00:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(spanStart(new Date('2026-11-23T00:00:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(spanStart(new Date('2026-11-22T23:59:59.999Z')).toISOString()).toBe('2026-11-16T00:00:00.000Z');
  });

  it('names a partition by its first day and covers a range with consecutive spans', () => {
    const spans = partitionsCovering('events', new Date('2026-11-20T00:00:00Z'), new Date('2026-12-01T00:00:00Z'));
    expect(spans.map((s) => s.name)).toEqual(['events_p20261116', 'events_p20261123', 'events_p20261130']);
    for (let i = 1; i < spans.length; i++) expect(spans[i].start).toEqual(spans[i - 1].end);
    expect(spans[0].end.getTime() - spans[0].start.getTime()).toBe(PARTITION_SPAN_MS);
  });

  it('reads a name back, and ignores the default partition and names that are not a span start', () => {
    expect(parsePartitionName('events', 'events_p20261123')).toEqual(partitionAt('events', new Date('2026-11-23T00:00:00Z')));
    expect(parsePartitionName('events', 'events_default')).toBeUndefined();
    expect(parsePartitionName('events', 'events_p20261124')).toBeUndefined();
    expect(parsePartitionName('events', 'webhook_deliveries_p20261123')).toBeUndefined();
  });

  it('expires a partition only once its whole week is before the cutoff', () => {
    const names = ['events_p20260803', 'events_p20260810', 'events_default', 'events_p20261123'];
    const cutoff = new Date('2026-08-17T00:00:00Z');
    expect(expiredPartitions('events', names, cutoff).map((s) => s.name)).toEqual(['events_p20260803', 'events_p20260810']);
    expect(expiredPartitions('events', names, new Date(cutoff.getTime() - 1)).map((s) => s.name)).toEqual(['events_p20260803']);
  });

  it('bounds hold exactly the ids minted in the span (ULID time sorts like the time)', () => {
    const span = partitionAt('events', new Date('2026-11-23T00:00:00Z'));
    const [lower, upper] = [idBoundAt('evt', span.start), idBoundAt('evt', span.end)];
    const inside = [newIdAt(EVENT_KIND, span.start), newIdAt(EVENT_KIND, new Date(span.end.getTime() - 1))];
    const outside = [newIdAt(EVENT_KIND, new Date(span.start.getTime() - 1)), newIdAt(EVENT_KIND, span.end)];
    for (const id of inside) expect(id >= lower && id < upper).toBe(true);
    for (const id of outside) expect(id >= lower && id < upper).toBe(false);
  });
});
