import request from 'supertest';
import { clientFor, createAccount, TestAccount, appSuite } from '../support/app';
import { WebhookSubscriptionsService } from '../../src/modules/webhooks/subscriptions/webhook-subscriptions.service';
import { ConsoleClient, consoleSignIn } from '../support/console';
import { createSubscription, hookUrl } from '../support/webhooks-api';

/**
 * No console form creates twice (issue 34, item 1): every form that creates or changes something answers
 * 303 to a page showing its result; a key or signing secret is shown from a one-time note (consumed when
 * shown, never in a URL); a form's token is good for one post, so the same body posted twice does its work
 * once, and reloading the result page (a GET) does nothing. The same in a real browser:
 * console-portal-browser.e2e-spec.ts.
 */
describe('console forms: one post, one change', () => {
  const s = appSuite({ REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-console-forms` });
  let account: TestAccount;
  let session: ConsoleClient;

  const count = async (sql: string, ...params: unknown[]): Promise<number> => (await s.db.query(sql, params))[0].n;
  const keys = () => count(`SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1`, account.accountId);
  const subscriptions = () => count(`SELECT count(*)::int AS n FROM webhook_subscriptions WHERE account_id = $1`, account.accountId);

  /** Posts the form on `pagePath` that goes to `action`, twice with the same body: both answers are 303 to one place. */
  async function postTwice(pagePath: string, action: string, typed: Record<string, string> = {}): Promise<string> {
    const form = { ...(await session.formOn(pagePath, action)), ...typed };
    expect(form._form).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const first = await session.post(action, form).expect(303);
    const second = await session.post(action, form).expect(303);
    expect(second.headers.location).toBe(first.headers.location);
    return first.headers.location as string;
  }

  beforeAll(async () => {
    account = await createAccount(s.t);
    session = await consoleSignIn(s.t, account.accountId);
  });

  it('creates one key from a form posted twice; its result page shows the key once, and reloading it creates nothing', async () => {
    const before = await keys();
    const location = await postTwice('/console/keys', '/console/keys', { label: 'Posted twice' });
    expect(await keys()).toBe(before + 1);
    expect(location).toMatch(/^\/console\/keys\/created\/[A-Za-z0-9_-]{22}$/);

    const shown = await session.get(location).expect(200);
    const key = /popk_[A-Za-z0-9_-]{43}/.exec(shown.text)![0];
    expect(shown.headers['cache-control']).toBe('no-store');
    await request(s.t.app.getHttpServer()).get('/v1/events').set('x-api-key', key).expect(200);

    const reloaded = await session.get(location).expect(410);
    expect(reloaded.text).not.toContain(key);
    expect(reloaded.text).toContain('shown once');
    expect(await keys()).toBe(before + 1);
  });

  it('creates one subscription from a form posted twice; its signing secret is shown once, and reloading creates nothing', async () => {
    const before = await subscriptions();
    const location = await postTwice('/console/webhooks', '/console/webhooks', { url: hookUrl(), eventFilters: 'property.*' });
    expect(await subscriptions()).toBe(before + 1);
    expect(location).toMatch(/^\/console\/webhooks\/sub_[0-9A-Z]{26}\/secret\/[A-Za-z0-9_-]{22}$/);

    const shown = await session.get(location).expect(200);
    const secret = /data-secret="signing">([^<]+)</.exec(shown.text)![1];
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const reloaded = await session.get(location).expect(410);
    expect(reloaded.text).not.toContain(secret);
    expect(await subscriptions()).toBe(before + 1);
  });

  it('never puts a shown-once value in a URL, and shows it to no other session or account', async () => {
    const form = await session.formOn('/console/keys', '/console/keys');
    const created = await session.post('/console/keys', { ...form, label: 'Elsewhere' }).expect(303);
    expect(created.headers.location).not.toMatch(/popk_/);
    // Another session of the same account, and another account's session: the note is not theirs to see.
    const again = await consoleSignIn(s.t, account.accountId);
    expect((await again.get(created.headers.location).expect(410)).text).not.toMatch(/popk_/);
    const stranger = await consoleSignIn(s.t, (await createAccount(s.t)).accountId);
    expect((await stranger.get(created.headers.location).expect(410)).text).not.toMatch(/popk_/);
    // Still there for its own session, once.
    expect((await session.get(created.headers.location).expect(200)).text).toMatch(/popk_/);

    // A subscription's secret page names its subscription: another account's is a 404 page, as every page of it.
    const added = await session.post('/console/webhooks', { url: hookUrl(), eventFilters: '*' }).expect(303);
    expect(added.headers.location).not.toMatch(/secret\/[^/]*[A-Za-z0-9_-]{43}/);
    await stranger.get(added.headers.location).expect(404);
    expect((await session.get(added.headers.location).expect(200)).text).toContain('data-secret="signing"');
  });

  it('creates one key from the same form posted five times at once: every answer goes to its one result', async () => {
    const before = await keys();
    const form = { ...(await session.formOn('/console/keys', '/console/keys')), label: 'Clicked five times' };
    const answers = await Promise.all(Array.from({ length: 5 }, () => session.post('/console/keys', form)));
    expect(answers.map((a) => a.status)).toEqual([303, 303, 303, 303, 303]);
    expect(new Set(answers.map((a) => a.headers.location)).size).toBe(1);
    expect(await keys()).toBe(before + 1);
  });

  it('lets a form whose post was refused be sent again (nothing was done), and then once only', async () => {
    const before = await subscriptions();
    const form = await session.formOn('/console/webhooks', '/console/webhooks');
    await session.post('/console/webhooks', { ...form, url: 'ftp://example.com/x', eventFilters: '*' }).expect(400);
    const url = hookUrl();
    const first = await session.post('/console/webhooks', { ...form, url, eventFilters: '*' }).expect(303);
    const again = await session.post('/console/webhooks', { ...form, url, eventFilters: '*' }).expect(303);
    expect(again.headers.location).toBe(first.headers.location);
    expect(await subscriptions()).toBe(before + 1);
  });

  it('answers a form without its one-post token with a page asking to reload, and changes nothing', async () => {
    const before = await keys();
    const res = await session.post('/console/keys', { label: 'No token', _form: '' }).expect(400);
    expect(res.text).toContain('Reload the page');
    expect(await keys()).toBe(before);
  });

  it('changes a subscription once per form: edit, disable, enable, rotate, test, replay, delete', async () => {
    const api = clientFor(s.t, account);
    const { id } = await createSubscription(api, { eventFilters: ['*'] });
    const page = `/console/webhooks/${id}`;
    const row = async () => (await s.db.query(`SELECT * FROM webhook_subscriptions WHERE id = $1`, [id]))[0];

    const url = hookUrl();
    expect(await postTwice(`${page}/settings`, page, { url, eventFilters: 'booking.*' })).toBe(`${page}?done=saved`);
    expect(await row()).toMatchObject({ url, event_filters: ['booking.*'] });

    expect(await postTwice(page, `${page}/enabled`)).toBe(`${page}?done=disabled`);
    expect((await row()).enabled).toBe(false);
    expect(await postTwice(page, `${page}/enabled`)).toBe(`${page}?done=enabled`);
    expect((await row()).enabled).toBe(true);

    // Rotated once: the secret before the two posts is the previous one, not the once-rotated one.
    const { signing_secret: original } = await row();
    const rotated = await postTwice(`${page}/settings`, `${page}/rotate`);
    expect(rotated).toMatch(new RegExp(`^${page}/secret/[A-Za-z0-9_-]{22}$`));
    expect((await row()).previous_secret).toBe(original);

    const deliveries = () => count(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1`, id);
    await postTwice(`${page}/settings`, `${page}/test`, { eventName: 'booking.create' });
    expect(await deliveries()).toBe(1);

    const replays = () => count(`SELECT count(*)::int AS n FROM webhook_replays WHERE subscription_id = $1`, id);
    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
    expect(await postTwice(`${page}/settings`, `${page}/replay`, { since })).toMatch(new RegExp(`^${page}/replays/rpl_`));
    expect(await replays()).toBe(1);

    const before = await subscriptions();
    expect(await postTwice(`${page}/delete`, `${page}/delete`)).toBe('/console/webhooks?done=deleted');
    expect(await subscriptions()).toBe(before - 1);
    expect(await row()).toBeUndefined();
  });

  it('retries a delivery once per form', async () => {
    const { id } = await createSubscription(clientFor(s.t, account), { eventFilters: ['*'] });
    await postTwice(`/console/webhooks/${id}/settings`, `/console/webhooks/${id}/test`, { eventName: 'booking.create' });
    const [{ id: deliveryId }] = await s.db.query(`SELECT id FROM webhook_deliveries WHERE subscription_id = $1`, [id]);
    const retries = jest.spyOn(s.t.app.get(WebhookSubscriptionsService), 'retryDelivery');
    try {
      const action = `/console/webhooks/${id}/deliveries/${deliveryId}/retry`;
      expect(await postTwice(`/console/webhooks/${id}/deliveries/${deliveryId}`, action)).toBe(
        `/console/webhooks/${id}/deliveries/${deliveryId}?done=retried`,
      );
      expect(retries).toHaveBeenCalledTimes(1);
    } finally {
      retries.mockRestore();
    }
  });

  it('revokes a key once per form', async () => {
    const issued = await createAccount(s.t);
    const own = await consoleSignIn(s.t, issued.accountId);
    const action = `/console/keys/${issued.apiKeyId}/revoke`;
    const form = await own.formOn(action, action);
    const first = await own.post(action, form).expect(303);
    const second = await own.post(action, form).expect(303);
    expect(second.headers.location).toBe(first.headers.location);
    const audit = await s.db.query(`SELECT action FROM console_audit WHERE account_id = $1`, [issued.accountId]);
    expect(audit.map((a: { action: string }) => a.action)).toEqual(['key.revoked']);
  });
});
