import { idKinds } from '../../platform/ids/ids';

/** The ids this module mints (declared to the house in auth.declaration.ts). */
export const AUTH_IDS = idKinds({ account: 'acct', apiKey: 'key' });
