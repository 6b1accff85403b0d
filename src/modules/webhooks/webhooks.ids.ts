import { idKinds } from '../../platform/ids/ids';

/** The ids this module mints (declared to the house in webhooks.declaration.ts). */
export const WEBHOOK_IDS = idKinds({ subscription: 'sub', delivery: 'whd', replay: 'rpl' });
