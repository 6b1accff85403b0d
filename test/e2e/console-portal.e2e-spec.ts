import { clientFor, createAccount } from '../support/app';
import { ConsoleClient, consoleSignIn } from '../support/console';
import { elementText, insertDeliveries, occurrences, pageText } from '../support/console-pages';
import { waitUntil } from '../support/wait';
import { QUICK_RETRIES, useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';
import { deliveriesOf, publishEvent, subscriptionOf, verifiesV1a, signatureValues } from '../support/webhooks';
import { createSubscription, hookUrl } from '../support/webhooks-api';

/**
 * The webhook portal over HTTP (issue 34, item 2): signature schemes on create and edit, the public key,
 * unknown filters flagged once each, statuses in words, the delivery log's filters and pages, each
 * attempt's request as it was sent, an empty replay in words, deletion after a confirmation. In a
 * browser (copy buttons, 375 px, axe): console-portal-browser.e2e-spec.ts.
 */
describe('webhook portal over HTTP', () => {
  const engine = useWebhookEngine(webhookTestEnv('console-portal', QUICK_RETRIES));
  let session: ConsoleClient;

  beforeAll(async () => {
    const { t, account } = engine.started();
    session = await consoleSignIn(t, account.accountId);
  });

  /** Adds a subscription through the form; returns its id and the secret page's HTML. */
  async function add(fields: Record<string, string>): Promise<{ id: string; secretPage: string }> {
    const added = await session.post('/console/webhooks', { eventFilters: '*', ...fields }).expect(303);
    const id = /^\/console\/webhooks\/(sub_[0-9A-Z]{26})\/secret\//.exec(added.headers.location)![1];
    return { id, secretPage: (await session.get(added.headers.location).expect(200)).text };
  }

  it('flags every filter that is no filter or names no event, each once, and adds nothing', async () => {
    const { db, account } = engine.started();
    const res = await session.post('/console/webhooks', { url: hookUrl(), eventFilters: 'booking.nonsense, ???, bookng.*, property.*' });
    expect(res.status).toBe(400);
    const text = pageText(res.text);
    for (const message of [
      'Event filter "booking.nonsense" names no event',
      'Event filter "???" is not a filter',
      'Event filter "bookng.*" matches no event',
    ])
      expect({ message, times: occurrences(text, message) }).toEqual({ message, times: 1 });
    expect(text).not.toContain('Event filter "property.*"');
    expect(text).toContain('The subscription was not added.');
    // The form keeps what was typed.
    expect(res.text).toContain('value="booking.nonsense, ???, bookng.*, property.*"');
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM webhook_subscriptions WHERE account_id = $1`, [account.accountId]);
    expect(n).toBe(0);
  });

  it('turns v1a on when adding and shows the public key; turns it off and on again from the settings', async () => {
    const { api } = engine.started();
    const receiver = await engine.receiver();
    const { id, secretPage } = await add({ url: `${receiver.url}/v1a`, eventFilters: 'property.*', v1a: 'on' });
    const publicKey = elementText(secretPage, 'public-key')!;
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(elementText(secretPage, 'whsec')).toBe(`whsec_${Buffer.from(elementText(secretPage, 'secret')!).toString('base64')}`);
    expect(await subscriptionOf(api, id)).toMatchObject({ signatureSchemes: ['v1', 'v1a'], publicKey });
    const page = (await session.get(`/console/webhooks/${id}`).expect(200)).text;
    expect(elementText(page, 'public-key')).toBe(publicKey);
    expect(pageText(page)).toContain('Signed with v1 (HMAC) and v1a (ed25519)');

    // A real delivery verifies with the key the page shows.
    await publishEvent(engine.started().t, engine.started().account.accountId, 'property.create');
    const [delivery] = await receiver.waitFor(1, 20_000);
    expect(verifiesV1a(delivery, signatureValues(delivery, 'v1a')[0], publicKey)).toBe(true);

    const settings = await session.formOn(`/console/webhooks/${id}/settings`, `/console/webhooks/${id}`);
    await session.post(`/console/webhooks/${id}`, { ...settings, url: `${receiver.url}/v1a`, eventFilters: 'property.*' }).expect(303);
    const off = await subscriptionOf(api, id);
    expect(off.publicKey).toBeUndefined();
    expect(elementText((await session.get(`/console/webhooks/${id}`).expect(200)).text, 'public-key')).toBeUndefined();
    await session.post(`/console/webhooks/${id}`, { url: `${receiver.url}/v1a`, eventFilters: 'property.*', v1a: 'on' }).expect(303);
    const on = await subscriptionOf(api, id);
    expect(on.publicKey).toMatch(/^whpk_/);
    expect(on.publicKey).not.toBe(publicKey);
  });

  it('turns ordered on when adding, says so on the subscription page, and off from the settings (issue 31)', async () => {
    const { api } = engine.started();
    const receiver = await engine.receiver();
    const { id } = await add({ url: `${receiver.url}/ordered`, eventFilters: 'property.*', ordered: 'on' });
    expect(await subscriptionOf(api, id)).toMatchObject({ ordered: true, waitingDeliveries: 0 });
    const page = (await session.get(`/console/webhooks/${id}`).expect(200)).text;
    expect(pageText(page)).toContain("one at a time, in the feed's order; 0 waiting");
    const settingsPage = (await session.get(`/console/webhooks/${id}/settings`).expect(200)).text;
    expect(settingsPage).toMatch(/<input id="ordered" name="ordered" type="checkbox" value="on" checked/);
    // Unticked: the box sends nothing.
    await session.post(`/console/webhooks/${id}`, { url: `${receiver.url}/ordered`, eventFilters: 'property.*' }).expect(303);
    expect((await subscriptionOf(api, id)).ordered).toBe(false);
  });

  it('names, on the log and on each waiting delivery, the head of the order it waits for, with a link (issue 41)', async () => {
    const { t, account, api } = engine.started();
    const receiver = await engine.receiver();
    receiver.respondWith(() => ({ status: 503, body: 'busy' }));
    const { id } = await add({ url: `${receiver.url}/ordered-head`, eventFilters: 'reminder.delete', ordered: 'on', maxRetries: '10' });
    for (let n = 0; n < 3; n++) await publishEvent(t, account.accountId, 'reminder.delete');
    // The first fails and retries; the two after it wait for it.
    const { head, behind } = await waitUntil(
      async () => {
        const rows = await deliveriesOf(api, id);
        const waiting = rows.filter((row) => row.waitingFor);
        const first = rows.find((row) => !row.waitingFor && row.attemptCount > 0);
        return waiting.length === 2 && first ? { head: first.id as string, behind: waiting.map((row) => row.id as string) } : undefined;
      },
      20_000,
      'two deliveries waiting for a failing head',
    );
    const headLink = `href="/console/webhooks/${id}/deliveries/${head}"`;
    const log = (await session.get(`/console/webhooks/${id}`).expect(200)).text;
    // (pageText puts a space where each tag was: "whd_… ," reads "whd_…," on the page.)
    expect(pageText(log)).toContain(`one at a time, in the feed's order; 2 waiting for ${head} , whose retry or end lets them go`);
    for (const waiting of behind) {
      const entry = log.split('<li').find((item) => item.includes(`data-delivery="${waiting}"`))!;
      expect(pageText(entry)).toContain(`Waiting for ${head}`);
      expect(pageText(entry)).not.toContain('Pending: not sent yet');
      expect(entry).toContain(headLink);
      const page = (await session.get(`/console/webhooks/${id}/deliveries/${waiting}`).expect(200)).text;
      expect(pageText(page)).toContain(
        `Waiting for ${head} · ${waiting} ${head} is the head of this subscription's order: this delivery is sent once that one is delivered or fails for good`,
      );
      expect(page).toContain(headLink);
    }
    await session.post(`/console/webhooks/${id}/delete`).expect(303);
  });

  it('shows each attempt’s request as the receiver got it (headers in order, payload byte for byte), statuses in words', async () => {
    const { t, account } = engine.started();
    const receiver = await engine.receiver();
    receiver.respondWith(() => ({ status: 500, body: 'boom' }));
    const { id } = await add({ url: `${receiver.url}/fails`, eventFilters: 'booking.create', maxRetries: '1' });
    await publishEvent(t, account.accountId, 'booking.create', [{ bookingId: 'bk_portal', note: '<é & "quotes">' }]);
    const received = await receiver.waitFor(2, 20_000);
    const log = await waitUntil(
      async () => {
        const text = (await session.get(`/console/webhooks/${id}`).expect(200)).text;
        // The log's entry, not the status filter (whose options name every status).
        const entry = text.split('<li').find((item) => item.includes('data-delivery="'));
        return entry && pageText(entry).includes('Failed, no retries left') ? text : undefined;
      },
      20_000,
      'the delivery to fail for good',
    );
    expect(pageText(log)).not.toContain('failed_permanent');
    const deliveryId = /data-delivery="(whd_[0-9A-Z]{26})"/.exec(log)![1];

    const page = (await session.get(`/console/webhooks/${id}/deliveries/${deliveryId}`).expect(200)).text;
    expect(pageText(page)).toContain('Failed, no retries left');
    for (const [n, request] of received.entries()) {
      expect(elementText(page, `request-body-${n}`)).toBe(request.rawBody);
      const shown = elementText(page, `request-headers-${n}`)!
        .split('\n')
        .map((line) => line.split(': '));
      const sent = shown.map(([name]) => [name, name === 'webhook-signature' ? 'v1,not kept' : request.headers[name]]);
      expect(shown).toEqual(sent);
      expect(shown.map(([name]) => name)).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-retry-count']));
      expect(elementText(page, `response-${n}`)).toBe('boom');
    }
  });

  it('filters the delivery log by status and event name and pages through it, filters kept', async () => {
    const { db, account } = engine.started();
    const { id } = await add({ url: hookUrl() });
    const rows = Array.from({ length: 45 }, (_, n) => ({
      eventName: n % 2 ? 'booking.create' : 'property.update',
      status: n % 3 ? ('delivered' as const) : ('failed_permanent' as const),
    }));
    const ids = (await insertDeliveries(db, { accountId: account.accountId, subscriptionId: id }, rows)).reverse();
    const listed = (html: string) => [...html.matchAll(/data-delivery="(whd_[0-9A-Z]{26})"/g)].map((m) => m[1]);

    const first = (await session.get(`/console/webhooks/${id}`).expect(200)).text;
    expect(listed(first)).toEqual(ids.slice(0, 20));
    const older = /href="([^"]+cursor=[^"]+)">Older deliveries/.exec(first)![1].replace(/&amp;/g, '&');
    expect(listed((await session.get(older).expect(200)).text)).toEqual(ids.slice(20, 40));

    const wanted = rows.map((row, n) => ({ ...row, id: ids[rows.length - 1 - n] })).reverse();
    const failedBookings = wanted.filter((r) => r.status === 'failed_permanent' && r.eventName === 'booking.create').map((r) => r.id);
    const filtered = (await session.get(`/console/webhooks/${id}?status=failed_permanent&eventName=booking.create`).expect(200)).text;
    expect(listed(filtered)).toEqual(failedBookings);
    expect(filtered).toContain('<option value="failed_permanent" selected>');

    const delivered = wanted.filter((r) => r.status === 'delivered').map((r) => r.id);
    const page1 = (await session.get(`/console/webhooks/${id}?status=delivered`).expect(200)).text;
    expect(listed(page1)).toEqual(delivered.slice(0, 20));
    const next = /href="([^"]+)">Older deliveries/.exec(page1)![1].replace(/&amp;/g, '&');
    expect(next).toContain('status=delivered');
    expect(listed((await session.get(next).expect(200)).text)).toEqual(delivered.slice(20));

    expect(pageText((await session.get(`/console/webhooks/${id}?status=nonsense`).expect(400)).text)).toContain('status must be one of');
  });

  it('says an empty replay window in words, without a progress bar', async () => {
    const { id } = await add({ url: hookUrl(), eventFilters: 'reminder.due' });
    const since = new Date(Date.now() - 60_000).toISOString().slice(0, 16);
    const started = await session.post(`/console/webhooks/${id}/replay`, { since }).expect(303);
    const page = (await session.get(started.headers.location).expect(200)).text;
    expect(pageText(page)).toContain('The window held no events to send to this subscription, so nothing was replayed.');
    expect(page).not.toContain('<progress');
    expect(pageText(page)).not.toContain('0 of 0');
  });

  it('deletes a subscription after a confirmation page', async () => {
    const { api } = engine.started();
    const { id } = await add({ url: hookUrl() });
    const confirm = await session.get(`/console/webhooks/${id}/delete`).expect(200);
    expect(pageText(confirm.text)).toContain('cannot be undone');
    const deleted = await session.post(`/console/webhooks/${id}/delete`).expect(303);
    expect(pageText((await session.get(deleted.headers.location).expect(200)).text)).toContain('The subscription is deleted');
    expect((await api.get('/v1/webhooks').expect(200)).body.data.map((s: { id: string }) => s.id)).not.toContain(id);
    await session.get(`/console/webhooks/${id}`).expect(404);
  });
  it('answers another account’s subscription, its pages, its deliveries and keys with a 404 page, and changes nothing of theirs', async () => {
    const { t, api } = engine.started();
    const other = await createAccount(t);
    const theirs = clientFor(t, other);
    const { id } = await createSubscription(theirs, { eventFilters: ['*'] });
    await session.get(`/console/webhooks/${id}`).expect(404);
    await session.post(`/console/webhooks/${id}`, { url: hookUrl(), eventFilters: '*' }).expect(404);
    await session.post(`/console/webhooks/${id}/enabled`, { enabled: 'false' }).expect(404);
    await session.post(`/console/webhooks/${id}/rotate`).expect(404);
    await session.post(`/console/webhooks/${id}/test`, { eventName: 'property.create' }).expect(404);
    await session.get(`/console/webhooks/${id}/settings`).expect(404);
    await session.get(`/console/webhooks/${id}/delete`).expect(404);
    await session.post(`/console/webhooks/${id}/delete`).expect(404);
    await session.post(`/console/webhooks/${id}/replay`, { since: '2030-01-01T00:00' }).expect(404);
    const { deliveryId } = (await theirs.post(`/v1/webhooks/${id}/test`).send({ eventName: 'property.create' }).expect(202)).body as {
      deliveryId: string;
    };
    await session.get(`/console/webhooks/${id}/deliveries/${deliveryId}`).expect(404);
    await session.post(`/console/webhooks/${id}/deliveries/${deliveryId}/retry`).expect(404);
    // Their delivery under one of this account's subscriptions is no more found.
    const mine = await createSubscription(api, { eventFilters: ['*'] });
    await session.get(`/console/webhooks/${mine.id}/deliveries/${deliveryId}`).expect(404);
    await session.get(`/console/keys/${other.apiKeyId}/revoke`).expect(404);
    await session.post(`/console/keys/${other.apiKeyId}/revoke`).expect(404);
    expect((await theirs.get('/v1/webhooks').expect(200)).body.data).toMatchObject([{ id, enabled: true }]);
    await theirs.get('/v1/events').expect(200);
  });
});
