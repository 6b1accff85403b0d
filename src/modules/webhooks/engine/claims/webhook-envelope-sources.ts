import { Injectable } from '@nestjs/common';
import { boundedCache } from '../../../../platform/cache/bounded-cache';
import { EventsService } from '../../../events/events.service';
import { EnvelopeSource, eventEnvelopeSource } from '../../webhook-envelope.rules';

/**
 * Envelope sources of recently loaded events kept in memory at most: event rows never change, and a
 * fan-out's deliveries of one event arrive together, so most load batches need no event query at all.
 */
const RECENT_EVENTS_MAX = 1_000;

/** What delivery envelopes are built from, read through the event log's service (never its tables). */
@Injectable()
export class WebhookEnvelopeSources {
  /** Event id → envelope source (see RECENT_EVENTS_MAX). */
  private readonly recent = boundedCache<string, EnvelopeSource>(RECENT_EVENTS_MAX);

  constructor(private readonly events: EventsService) {}

  /** Whether this event's envelope source is in memory (an ordered claim then loads no events ahead). */
  has(eventId: string): boolean {
    return this.recent.has(eventId);
  }

  /** Envelope sources of these events (each of its account): recent ones from memory, the others in one query. */
  async of(refs: Array<{ accountId: string; id: string }>): Promise<Map<string, EnvelopeSource>> {
    // Collected into a map of this call's own: the cache may drop an entry while this call waits.
    const sources = new Map<string, EnvelopeSource>();
    const missing: typeof refs = [];
    for (const ref of refs) {
      const recent = this.recent.get(ref.id);
      if (recent?.targetAccountId === ref.accountId) sources.set(ref.id, recent);
      else missing.push(ref);
    }
    if (missing.length === 0) return sources;
    const events = await this.events.findForDelivery(missing);
    for (const event of events) {
      const source = eventEnvelopeSource(event);
      this.recent.set(event.id, source);
      sources.set(event.id, source);
    }
    return sources;
  }
}
