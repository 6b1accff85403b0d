import { declareModule } from '../../platform/modules/module-declaration';
import { EXAMPLE_AT as at } from '../../platform/openapi/examples';
import { AUTH_EXAMPLE_IDS } from '../auth/auth.declaration';
import { EVENT_SHAPE } from './event.response';
import { EVENT_IDS } from './events.ids';

export const EVENTS_EXAMPLE_IDS = { eventId: 'evt_01JDZK9E8F9G0H1J2K3M4N5P6Q' };

export const EVENTS = declareModule({
  ids: EVENT_IDS,
  tenantTables: [{ table: 'events' }],
  exampleIds: EVENTS_EXAMPLE_IDS,
  shapes: [EVENT_SHAPE],
  examples: {
    Event: {
      id: EVENTS_EXAMPLE_IDS.eventId,
      eventName: 'property.create',
      createdAt: at,
      clientRequestId: 'req_7f0c2a4e-2f61-4d89-a8a4-3b1d2b9f5c11',
      apiRequestId: '7f0c2a4e-2f61-4d89-a8a4-3b1d2b9f5c11',
      targetAccountId: AUTH_EXAMPLE_IDS.accountId,
      // The whole read shape: the document sets the example's results from its event's payload example.
      results: [],
    },
  },
  tags: { Events: 'The event feed: the backfill source for webhooks.' },
});

declare module '../../platform/modules/module-declaration' {
  interface DeclaredModules {
    events: typeof EVENTS;
  }
}
