import { idKinds } from '../../platform/ids/ids';

/** The ids this module mints (declared to the house in events.declaration.ts). */
export const EVENT_IDS = idKinds({ event: 'evt' });
