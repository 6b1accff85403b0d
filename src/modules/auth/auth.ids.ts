import { idKinds } from '../../platform/ids/ids';

/** The ids this module mints (declared to the house in auth.declaration.ts). */
export const AUTH_IDS = idKinds({
  account: 'acct',
  /** An account's sandbox (test mode): an account row of its own, so its id tells a delivery it is from test mode. */
  sandbox: 'sbx',
  apiKey: 'key',
});
