import { AccountsService } from '../../src/modules/auth/accounts.service';
import { clientFor, createAccount, TestAccount, TestApp } from './app';

/** An account with its Platform key (`platform`) and a legacy key (`legacy`), each with a client. */
export async function createLegacyAccount(t: TestApp) {
  const account: TestAccount = await createAccount(t);
  const legacyKey = await t.app.get(AccountsService).issueKey(account.accountId, 'legacy');
  return {
    account,
    legacyKey,
    platform: clientFor(t, account),
    legacy: clientFor(t, { apiKey: legacyKey.apiKey }),
  };
}

export const DEPRECATION_HEADERS = {
  deprecation: '@1791504000',
  sunset: 'Wed, 07 Apr 2027 00:00:00 GMT',
  link: '<https://docs.property-ops.example/docs/legacy>; rel="deprecation"',
};

/** The three deprecation headers of spec 9.2 on a response. */
export function expectDeprecationHeaders(res: { headers: Record<string, string> }, expected = DEPRECATION_HEADERS): void {
  expect({ deprecation: res.headers.deprecation, sunset: res.headers.sunset, link: res.headers.link }).toEqual(expected);
}
