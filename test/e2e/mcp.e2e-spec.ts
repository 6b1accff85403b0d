import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OpenAPIObject } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { WebhookSubscriptionsRepository } from '../../src/modules/webhooks/webhook-subscriptions.repository';
import { newIdAt } from '../../src/platform/ids/ids';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp, twoAccounts } from '../support/app';
import { validBooking } from '../support/bookings';
import { createChecklist, createJob, START } from '../support/job-requests';
import { expectProblem } from '../support/problem';
import { waitUntil } from '../support/wait';
import { createProperty, uniq, validProperty } from '../support/properties';
import { createSubscription } from '../support/webhooks-api';
import { WEBHOOK_IDS } from '../../src/modules/webhooks/webhooks.ids';

/**
 * The MCP server at /v1/mcp, driven by the MCP SDK's own Client over Streamable HTTP: the tools are the REST
 * routes' service calls, with their validation, problems, tenancy, key checks and rate limit.
 */

const TOOLS = [
  'find_properties',
  'create_property',
  'update_property',
  'get_property',
  'list_bookings',
  'get_booking',
  'create_booking',
  'change_booking_dates',
  'cancel_booking',
  'list_job_requests',
  'get_job_request',
  'create_job_request',
  'cancel_job_request',
  'read_job_chat',
  'post_job_chat',
  'list_recent_events',
  'webhooks_health',
];

type Auth = { bearer: string } | { 'x-api-key': string };

function mcpUrl(t: TestApp): URL {
  const address = t.app.getHttpServer().address() as { port: number };
  return new URL(`http://127.0.0.1:${address.port}/v1/mcp`);
}

async function connect(t: TestApp, auth: Auth): Promise<Client> {
  const headers = 'bearer' in auth ? { Authorization: `Bearer ${auth.bearer}` } : auth;
  const client = new Client({ name: 'e2e-assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(t), { requestInit: { headers } }));
  return client;
}

/** A raw POST of one JSON-RPC message, for the answers the SDK's client hides (401, 403, 429 problems). */
function rawPost(t: TestApp, headers: Record<string, string>, message: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' }) {
  return t.http
    .post('/v1/mcp')
    .set({ accept: 'application/json, text/event-stream', ...headers })
    .send(message as object);
}

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, any>;
  content: Array<{ type: string; text: string }>;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

/** The structured result of a call that must succeed. */
async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const answer = await call(client, name, args);
  if (answer.isError) throw new Error(`${name} failed: ${answer.content[0]?.text}`);
  expect(JSON.parse(answer.content[0].text)).toEqual(answer.structuredContent);
  return answer.structuredContent!;
}

/** The problem document of a call that must fail as a tool error. */
async function problem(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const answer = await call(client, name, args);
  expect({ name, isError: answer.isError, structured: answer.structuredContent }).toEqual({ name, isError: true, structured: undefined });
  return JSON.parse(answer.content[0].text) as Record<string, any>;
}

describe('MCP server (/v1/mcp)', () => {
  let t: TestApp;
  let account: TestAccount;
  let api: ApiClient;
  let otherApi: ApiClient;
  let client: Client;
  let otherClient: Client;

  beforeAll(async () => {
    t = await startApp();
    let other: TestAccount;
    ({ account, api, other, otherApi } = await twoAccounts(t));
    client = await connect(t, { bearer: account.apiKey });
    otherClient = await connect(t, { 'x-api-key': other.apiKey });
  });
  afterAll(async () => {
    await client?.close();
    await otherClient?.close();
    await t.close();
  });

  it('initializes, and lists the tools with annotations and schemas taken from the REST document', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'property-operations-platform', version: t.config.version });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} });
    expect(client.getInstructions()).toContain('REST');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect({ name: tool.name, input: tool.inputSchema.type, output: tool.outputSchema?.type }).toEqual({
        name: tool.name,
        input: 'object',
        output: 'object',
      });
      expect(typeof tool.annotations?.readOnlyHint).toBe('boolean');
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('list_bookings')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get('cancel_booking')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName.get('create_job_request')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: true,
    });

    // One source: the create's input is the document's CreateBookingDto plus idempotencyKey; the list's its query parameters.
    const doc = (await t.http.get('/v1/openapi.json').expect(200)).body as OpenAPIObject;
    const dto = doc.components!.schemas!.CreateBookingDto as { properties: object; required: string[] };
    const create = byName.get('create_booking')!.inputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(create.properties).sort()).toEqual([...Object.keys(dto.properties), 'idempotencyKey'].sort());
    expect(create.required).toEqual(dto.required);
    expect(create.properties.startDate).toEqual((dto.properties as Record<string, unknown>).startDate);
    const query = (doc.paths['/v1/bookings'].get!.parameters as Array<{ in?: string; name: string }>).filter((p) => p.in === 'query');
    expect(Object.keys(byName.get('list_bookings')!.inputSchema.properties!).sort()).toEqual(query.map((p) => p.name).sort());
    expect(byName.get('get_booking')!.inputSchema).toMatchObject({ required: ['bookingId'], additionalProperties: false });

    // One source: each tool's description is its route's summary and description, then what only the tool adds
    // (list_recent_events reads the feed newest first, in its own words: below).
    for (const tool of tools.filter((t) => t.name !== 'list_recent_events')) {
      const [, method, path] = /\(REST: (GET|POST|PATCH) (\S+)\)$/.exec(tool.description!)!;
      const operation = (doc.paths[path] as Record<string, { summary: string; description: string }>)[method.toLowerCase()];
      expect({ tool: tool.name, starts: tool.description!.startsWith(`${operation.summary}. ${operation.description}`) }).toEqual({
        tool: tool.name,
        starts: true,
      });
    }
    expect(byName.get('create_property')!.description).toContain('Pass an idempotencyKey');
    expect(byName.get('list_bookings')!.description).toContain("pass the answer's nextCursor as cursor");
    expect(byName.get('list_recent_events')!.description).toMatch(
      /^The account's most recent events, newest first\. .*pass the answer's nextCursor as before/,
    );
    expect(byName.get('update_property')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    const propertyDto = doc.components!.schemas!.CreatePropertyDto as { properties: object };
    expect(Object.keys(byName.get('create_property')!.inputSchema.properties!).sort()).toEqual(
      [...Object.keys(propertyDto.properties), 'idempotencyKey'].sort(),
    );
  });

  it('serves /llms.txt for assistants that read documentation, and the pages it lists', async () => {
    const index = await t.http
      .get('/llms.txt')
      .expect(200)
      .expect('content-type', /^text\/plain/);
    expect(index.text).toMatch(/^# Property Operations Platform API\n\n> /);
    expect(index.text).toContain(`(${t.config.publicBaseUrl}/v1/openapi.json)`);
    const pages = [...index.text.matchAll(/\]\(([^)]+\/llms\/[^)]+\.md)\)/g)].map((m) => new URL(m[1]).pathname);
    expect(pages).toEqual(expect.arrayContaining(['/llms/README.md', '/llms/assistants.md', '/llms/webhooks.md']));
    for (const page of pages)
      await t.http
        .get(page)
        .expect(200)
        .expect('content-type', /^text\/markdown/);
    expectProblem(await t.http.get('/llms/secrets.md'), 404, 'notFound');
  });

  it('reads: finds a property by name or sourceId, gets it with its checklists, lists and gets bookings', async () => {
    const name = `Harbour loft ${uniq()}`;
    const property = await createProperty(api, { name });
    await createProperty(api, { name: 'Mountain chalet' });
    const checklist = await createChecklist(api, property.propertyId);
    const booking = (await api.post('/v1/bookings').send(validBooking(property.propertyId)).expect(201)).body;

    const byName = await ok(client, 'find_properties', { name: name.toUpperCase().slice(0, 14) + name.slice(14) });
    expect(byName.data.map((p: any) => p.propertyId)).toEqual([property.propertyId]);
    const bySource = await ok(client, 'find_properties', { sourceId: property.sourceId });
    expect(bySource).toEqual({
      data: [(await api.get(`/v1/properties/${property.propertyId}`).expect(200)).body],
      nextCursor: null,
      hasMore: false,
    });
    expect((await ok(client, 'find_properties', { name: '%' })).data).toEqual([]); // wildcards match as written

    const got = await ok(client, 'get_property', { propertyId: property.propertyId });
    expect(got.property.propertyId).toBe(property.propertyId);
    expect(got.checklists.map((c: any) => c.checklistId)).toEqual([checklist.checklistId]);

    const window = { dateFrom: '2029-12-31T00:00:00Z', dateTo: '2030-01-10T00:00:00Z', propertyId: property.propertyId };
    const listed = await ok(client, 'list_bookings', { ...window, status: 1, limit: 10 });
    expect(listed.data.map((b: any) => b.bookingId)).toEqual([booking.bookingId]);
    expect((await ok(client, 'list_bookings', { ...window, status: 3 })).data).toEqual([]);
    expect(await ok(client, 'get_booking', { bookingId: booking.bookingId })).toEqual(booking);
  });

  it('writes: creates a property under an idempotency key shared with REST, and updates it', async () => {
    const body = validProperty();
    const key = `mcp-property-${uniq()}`;
    const created = await ok(client, 'create_property', { ...body, idempotencyKey: key });
    expect(created).toMatchObject({ sourceId: body.sourceId, name: body.name });
    expect((await api.get(`/v1/properties/${created.propertyId}`).expect(200)).body).toEqual(created);

    // The same key and arguments, by MCP or by REST: the first answer again, one property; other arguments: refused.
    expect(await ok(client, 'create_property', { ...body, idempotencyKey: key })).toEqual(created);
    const replayed = await api.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(created);
    expect((await problem(client, 'create_property', { ...body, name: 'Another name', idempotencyKey: key })).code).toBe(
      'idempotencyKeyReused',
    );
    expect((await ok(client, 'find_properties', { sourceId: body.sourceId })).data).toEqual([created]);
    // A REST create first: its key replays through MCP too.
    const restBody = validProperty();
    const restKey = `rest-property-${uniq()}`;
    const rest = (await api.post('/v1/properties').set('Idempotency-Key', restKey).send(restBody).expect(201)).body;
    expect(await ok(client, 'create_property', { ...restBody, idempotencyKey: restKey })).toEqual(rest);

    const updated = await ok(client, 'update_property', {
      propertyId: created.propertyId,
      name: 'Harbour loft, renamed',
      tags: ['sea-view'],
    });
    expect(updated).toMatchObject({ propertyId: created.propertyId, name: 'Harbour loft, renamed', tags: ['sea-view'] });
    expect((await api.get(`/v1/properties/${created.propertyId}`).expect(200)).body).toEqual(updated);
    expect(await problem(client, 'update_property', { propertyId: created.propertyId, beds: 'many' })).toMatchObject({
      code: 'validationFailed',
      errors: [{ pointer: '#/beds' }],
      instance: '/v1/mcp/tools/update_property',
    });
    const theirs = await createProperty(otherApi);
    expect((await problem(client, 'update_property', { propertyId: theirs.propertyId, name: 'Not mine' })).status).toBe(404);
    expect((await otherApi.get(`/v1/properties/${theirs.propertyId}`).expect(200)).body.name).toBe(theirs.name);
  });

  it('writes: creates a booking under an idempotency key shared with REST, changes its dates and cancels it', async () => {
    const property = await createProperty(api);
    const body = validBooking(property.propertyId);
    const key = `mcp-${uniq()}`;
    const created = await ok(client, 'create_booking', { ...body, idempotencyKey: key });
    expect(created).toMatchObject({ propertyId: property.propertyId, sourceBookingId: body.sourceBookingId, status: 1 });
    expect((await api.get(`/v1/bookings/${created.bookingId}`).expect(200)).body).toEqual(created);

    // The same key and arguments: the first answer again, by MCP or by REST; nothing created twice.
    expect(await ok(client, 'create_booking', { ...body, idempotencyKey: key })).toEqual(created);
    const replayed = await api.post('/v1/bookings').set('Idempotency-Key', key).send(body).expect(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(created);
    expect((await problem(client, 'create_booking', { ...body, numberOfGuests: 5, idempotencyKey: key })).code).toBe(
      'idempotencyKeyReused',
    );
    // One booking.create event, whose clientRequestId is the key, as for a REST create. Read from the table: the
    // feed only shows events once every older transaction of the cluster has ended (docs/architecture.md).
    const events: Array<{ client_request_id: string }> = await t.app
      .get(DataSource)
      .query(`SELECT client_request_id FROM events WHERE account_id = $1 AND event_name = 'booking.create' AND results::text LIKE $2`, [
        account.accountId,
        `%${created.bookingId}%`,
      ]);
    expect(events.map((e) => e.client_request_id)).toEqual([key]);

    const moved = await ok(client, 'change_booking_dates', {
      bookingId: created.bookingId,
      startDate: '2030-02-01T15:00:00Z',
      endDate: '2030-02-03T10:00:00Z',
    });
    expect(moved).toMatchObject({ bookingId: created.bookingId, status: 2, startDate: '2030-02-01T15:00:00.000Z' });
    const cancelled = await ok(client, 'cancel_booking', { bookingId: created.bookingId });
    expect(cancelled).toMatchObject({ status: 3 });
    // Cancelling again changes nothing (the tool's idempotentHint).
    expect(await ok(client, 'cancel_booking', { bookingId: created.bookingId })).toEqual(cancelled);
    expect((await api.get(`/v1/bookings/${created.bookingId}`).expect(200)).body.status).toBe(3);
  });

  it('writes: creates a job request, lists those still needing a cleaner, reads and posts in its chat, cancels it', async () => {
    const property = await createProperty(api);
    const job = await ok(client, 'create_job_request', {
      serviceProviders: [{ email: 'ann@cleaners.example' }],
      time: { type: 'fixed', startTime: START, durationInHours: 2 },
      property: { propertyId: property.propertyId },
    });
    expect(job.status).toBe(1);
    const window = { dateFrom: '2030-05-31T00:00:00Z', dateTo: '2030-06-02T00:00:00Z' };
    const pending = await ok(client, 'list_job_requests', { ...window, status: 1 });
    expect(pending.data.map((j: any) => j.jobRequestId)).toContain(job.jobRequestId);
    expect(await ok(client, 'get_job_request', { jobRequestId: job.jobRequestId })).toEqual(job);

    const comment = await ok(client, 'post_job_chat', { jobRequestId: job.jobRequestId, message: 'Keys are in the lockbox' });
    expect(comment.message).toBe('Keys are in the lockbox');
    const chat = await ok(client, 'read_job_chat', { jobRequestId: job.jobRequestId });
    expect(chat.data.map((c: any) => c.message)).toEqual(['Keys are in the lockbox']);
    expect((await api.get(`/v1/jobRequests/${job.jobRequestId}/comments`).expect(200)).body.data).toEqual(chat.data);

    expect(await ok(client, 'cancel_job_request', { jobRequestId: job.jobRequestId })).toMatchObject({ status: 3 });
    expect((await ok(client, 'list_job_requests', { ...window, status: 1 })).data.map((j: any) => j.jobRequestId)).not.toContain(
      job.jobRequestId,
    );
    // The changes wrote their events (read from the table: the feed shows an event only once every older
    // transaction of the cluster has ended, docs/architecture.md) ...
    const written: Array<{ event_name: string }> = await t.app
      .get(DataSource)
      .query(`SELECT event_name FROM events WHERE account_id = $1 AND results::text LIKE $2 ORDER BY id`, [
        account.accountId,
        `%${job.jobRequestId}%`,
      ]);
    // (the host's own chat messages write no event: docs/job-requests.md)
    expect(written.map((e) => e.event_name)).toEqual(['jobRequest.created', 'jobRequest.canceled']);
    // ... and list_recent_events answers "what happened recently?": the feed's events, newest first, whenever
    // two REST reads around it agree (the feed shows a transaction once every older one has ended).
    const feed = await waitUntil(
      async () => {
        const before = (await api.get('/v1/events?limit=100').expect(200)).body;
        const viaMcp = await ok(client, 'list_recent_events', { limit: 100 });
        const after = (await api.get('/v1/events?limit=100').expect(200)).body;
        if (JSON.stringify(before) !== JSON.stringify(after) || viaMcp.data.length !== after.data.length) return undefined;
        expect(viaMcp).toEqual({ data: [...after.data].reverse(), nextCursor: null, hasMore: false });
        return after.data as Array<{ id: string; eventName: string }>;
      },
      20_000,
      'a stable feed',
    );
    expect(feed.at(-1)!.eventName).toBe('jobRequest.canceled');
    // Paged by before (the previous page's nextCursor), and one event's name at a time.
    const newest = await ok(client, 'list_recent_events', { limit: 1 });
    expect(newest).toMatchObject({ data: [{ id: feed.at(-1)!.id }], hasMore: true, nextCursor: feed.at(-1)!.id });
    expect((await ok(client, 'list_recent_events', { limit: 1, before: newest.nextCursor })).data).toEqual([feed.at(-2)]);
    const created = await ok(client, 'list_recent_events', { eventName: 'jobRequest.created' });
    expect(created.data.map((e: any) => e.id)).toEqual(
      feed
        .filter((e) => e.eventName === 'jobRequest.created')
        .map((e) => e.id)
        .reverse(),
    );
    expect(await problem(client, 'list_recent_events', { before: 'garbage' })).toMatchObject({ status: 400, code: 'invalidCursor' });
  });

  it("reports the webhooks' health: each subscription, disabledReason while disabled, its failing deliveries among its newest", async () => {
    const db = t.app.get(DataSource);
    const hooksAccount = await createAccount(t);
    const hooksApi = clientFor(t, hooksAccount);
    const healthy = await createSubscription(hooksApi);
    const broken = await createSubscription(hooksApi);
    await db.query(
      `UPDATE webhook_subscriptions SET enabled = false, disabled_reason = 'auto_disabled_after_repeated_delivery_failures' WHERE id = $1`,
      [broken.id],
    );
    // Deliveries a second apart (ids sort by creation), oldest first; the newest HEALTH_DELIVERIES (20) are looked through.
    const start = Date.now() - 60_000;
    const deliver = async (subscriptionId: string, n: number, status: string, attemptCount: number) => {
      const id = newIdAt(WEBHOOK_IDS.delivery, new Date(start + n * 1_000));
      await db.query(
        `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, test, test_payload, status, attempt_count, next_retry_at)
         VALUES ($1, $2, $3, NULL, 'webhook.test', true, '{}', $4, $5, CASE WHEN $4 = 'pending' THEN now() + interval '1 hour' END)`,
        [id, hooksAccount.accountId, subscriptionId, status, attemptCount],
      );
      return id;
    };
    const tooOld = await deliver(broken.id, 0, 'failed_permanent', 6);
    const failing: string[] = [];
    for (let n = 1; n <= 20; n++) {
      if (n === 3 || n === 12) failing.push(await deliver(broken.id, n, 'failed_permanent', 6));
      else if (n === 18) failing.push(await deliver(broken.id, n, 'pending', 2));
      else await deliver(broken.id, n, n === 20 ? 'pending' : 'delivered', n === 20 ? 0 : 1);
      await deliver(healthy.id, n, 'delivered', 1);
    }
    // Another account's failure stays theirs.
    const theirs = await createSubscription(otherApi);
    const [otherAccount] = await db.query(`SELECT account_id FROM webhook_subscriptions WHERE id = $1`, [theirs.id]);
    await db.query(
      `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, test, test_payload, status, attempt_count)
       VALUES ($1, $2, $3, NULL, 'webhook.test', true, '{}', 'failed_permanent', 6)`,
      [newIdAt(WEBHOOK_IDS.delivery, new Date()), otherAccount.account_id, theirs.id],
    );

    const repository = t.app.get(WebhookSubscriptionsRepository);
    const perSubscription = jest.spyOn(repository, 'listDeliveries');
    const setBased = jest.spyOn(repository, 'recentFailures');
    const hooksClient = await connect(t, { bearer: hooksAccount.apiKey });
    try {
      const health = await ok(hooksClient, 'webhooks_health');
      expect(health.subscriptions.map((s: any) => s.subscription.id)).toEqual([healthy.id, broken.id]);
      const [good, bad] = health.subscriptions;
      expect(good).toMatchObject({ subscription: { enabled: true }, recentFailures: [] });
      expect(bad.subscription).toMatchObject({ enabled: false, disabledReason: 'auto_disabled_after_repeated_delivery_failures' });
      // Newest first, as the delivery log shows them: failed for good, or failed and waiting for a retry; none older than the newest 20.
      expect(bad.recentFailures.map((d: any) => d.id)).toEqual([...failing].reverse());
      expect(bad.recentFailures.map((d: any) => d.id)).not.toContain(tooOld);
      for (const delivery of bad.recentFailures)
        expect(delivery).toEqual((await hooksApi.get(`/v1/webhooks/${broken.id}/deliveries/${delivery.id}`).expect(200)).body);
      // One set-based read of the failures for every subscription, no read per subscription.
      expect(setBased).toHaveBeenCalledTimes(1);
      expect(perSubscription).not.toHaveBeenCalled();
    } finally {
      perSubscription.mockRestore();
      setBased.mockRestore();
      await hooksClient.close();
    }
  });

  it('answers invalid arguments with a tool error carrying the problem code, detail and pointers', async () => {
    const property = await createProperty(api);
    const invalid = await problem(client, 'create_booking', { ...validBooking(property.propertyId), startDate: 'tomorrow', colour: 'red' });
    expect(invalid).toMatchObject({ status: 400, code: 'objectStrict', errors: [{ pointer: '#/colour' }] });
    const dates = await problem(client, 'create_booking', { ...validBooking(property.propertyId), startDate: 'tomorrow' });
    expect(dates).toMatchObject({ status: 400, code: 'validationFailed', detail: expect.stringContaining('startDate') });
    expect(dates.errors.map((e: any) => e.pointer)).toEqual(['#/startDate']);
    expect((await problem(client, 'list_bookings', { dateFrom: '2030-01-01T00:00:00Z' })).errors).toEqual([
      { pointer: '#/dateTo', detail: '"dateTo": is required' },
    ]);
    expect((await problem(client, 'get_booking', {})).errors).toEqual([{ pointer: '#/bookingId', detail: '"bookingId": is required' }]);
    expect((await problem(client, 'create_booking', { ...validBooking(property.propertyId), idempotencyKey: 'not valid' })).code).toBe(
      'invalidIdempotencyKey',
    );
    expect((await problem(client, 'webhooks_health', { verbose: true })).code).toBe('objectStrict');

    // Said of the tool's arguments, not of a request's query or body, with the tool as the problem's instance.
    const limit = await problem(client, 'find_properties', { limit: 'ten' });
    expect(limit).toMatchObject({
      status: 400,
      code: 'validationFailed',
      detail: 'Invalid arguments: "limit": must be an integer',
      errors: [{ pointer: '#/limit', detail: '"limit": must be an integer' }],
      instance: '/v1/mcp/tools/find_properties',
    });
    const unknown = await problem(client, 'list_bookings', { dateFrom: '2030-01-01T00:00:00Z', dateTo: '2030-02-01T00:00:00Z', bogus: 1 });
    expect(unknown).toMatchObject({
      code: 'objectStrict',
      detail: 'Unknown argument: "bogus"',
      errors: [{ pointer: '#/bogus', detail: 'Unknown argument "bogus" is not allowed' }],
      instance: '/v1/mcp/tools/list_bookings',
    });
    expect(JSON.stringify([limit, unknown])).not.toMatch(/query parameter|request body/);
    expect(await problem(client, 'get_booking', { bookingId: 'bk_00000000000000000000000000' })).toMatchObject({
      status: 404,
      code: 'notFound',
      instance: '/v1/mcp/tools/get_booking',
    });
    // An unknown tool is a protocol error, not a tool result: its message names the closest tool, and every tool
    // (as the error's data too), said once, without the client's "MCP error -32602: " prefix twice.
    await expect(client.callTool({ name: 'create_propery', arguments: {} })).rejects.toThrow(
      /^MCP error -32602: Unknown tool: create_propery\. Did you mean create_property\? The tools: find_properties, create_property, /,
    );
    const unknownTool = (
      await rawPost(
        t,
        { 'x-api-key': account.apiKey },
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'drop_database', arguments: {} },
        },
      ).expect(200)
    ).body;
    expect(unknownTool).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: `Unknown tool: drop_database. The tools: ${TOOLS.join(', ')}`, data: { tools: TOOLS } },
    });
  });

  it("answers another account's ids as not found, and changes nothing of theirs", async () => {
    const theirProperty = await createProperty(otherApi);
    const theirBooking = (await otherApi.post('/v1/bookings').send(validBooking(theirProperty.propertyId)).expect(201)).body;
    const theirJob = await createJob(otherApi, theirProperty.propertyId);
    for (const [name, args] of [
      ['get_property', { propertyId: theirProperty.propertyId }],
      ['get_booking', { bookingId: theirBooking.bookingId }],
      ['cancel_booking', { bookingId: theirBooking.bookingId }],
      ['change_booking_dates', { bookingId: theirBooking.bookingId, startDate: '2030-03-01T15:00:00Z', endDate: '2030-03-02T10:00:00Z' }],
      ['get_job_request', { jobRequestId: theirJob.jobRequestId }],
      ['cancel_job_request', { jobRequestId: theirJob.jobRequestId }],
      ['read_job_chat', { jobRequestId: theirJob.jobRequestId }],
      ['post_job_chat', { jobRequestId: theirJob.jobRequestId, message: 'hello' }],
    ] as const) {
      expect({ name, problem: await problem(client, name, args) }).toMatchObject({ name, problem: { status: 404, code: 'notFound' } });
    }
    expect((await ok(client, 'find_properties', { sourceId: theirProperty.sourceId })).data).toEqual([]);
    expect((await otherApi.get(`/v1/bookings/${theirBooking.bookingId}`).expect(200)).body).toEqual(theirBooking);
    expect((await otherApi.get(`/v1/jobRequests/${theirJob.jobRequestId}`).expect(200)).body.status).toBe(1);
    // Their own client sees them.
    expect((await ok(otherClient, 'get_booking', { bookingId: theirBooking.bookingId })).bookingId).toBe(theirBooking.bookingId);
  });

  it('refuses a missing, unknown or revoked key with a 401 problem before any MCP exchange, and an inactive account with 403', async () => {
    expectProblem(await rawPost(t, {}), 401, 'unauthorized', '/v1/mcp');
    expectProblem(await rawPost(t, { authorization: 'Bearer popk_not-a-real-key-at-all' }), 401, 'unauthorized');
    // The REST routes keep the spec's one header: a Bearer key there is no key.
    expectProblem(await t.http.get('/v1/events').set('authorization', `Bearer ${account.apiKey}`), 401, 'unauthorized');

    const doomed = await createAccount(t);
    const doomedClient = await connect(t, { bearer: doomed.apiKey });
    expect((await ok(doomedClient, 'list_recent_events')).data).toEqual([]);
    await t.app.get(AccountsService).revokeKey(doomed.apiKeyId);
    await expect(doomedClient.callTool({ name: 'list_recent_events', arguments: {} })).rejects.toThrow(/401/);
    await doomedClient.close();
    expectProblem(await rawPost(t, { authorization: `Bearer ${doomed.apiKey}` }), 401, 'unauthorized');
    await expect(connect(t, { bearer: doomed.apiKey })).rejects.toThrow(/401/);

    // A legacy key authenticates the Platform API until the sunset (spec 5.6), and so this endpoint.
    const legacy = await t.app.get(AccountsService).issueKey(account.accountId, 'legacy');
    expect((await rawPost(t, { authorization: `Bearer ${legacy.apiKey}` }).expect(200)).body.result.tools).toHaveLength(TOOLS.length);

    const lapsed = await createAccount(t);
    await t.app.get(AccountsService).setSubscriptionStatus(lapsed.accountId, 'inactive');
    expectProblem(await rawPost(t, { 'x-api-key': lapsed.apiKey }), 403, 'subscription_inactive');
    const basic = await createAccount(t, { plan: 'basic' });
    expectProblem(await rawPost(t, { authorization: `Bearer ${basic.apiKey}` }), 403, 'subscription_inactive');
  });

  it('answers what is no MCP POST with problem documents: GET and DELETE 405, a malformed message 400', async () => {
    const get = await t.http.get('/v1/mcp').set('authorization', `Bearer ${account.apiKey}`);
    expectProblem(get, 405, 'methodNotAllowed', '/v1/mcp');
    expect(get.headers.allow).toBe('POST');
    expectProblem(await t.http.delete('/v1/mcp').set('authorization', `Bearer ${account.apiKey}`), 405, 'methodNotAllowed');
    // With no key too (they need none), and both are operations of the document, answering 405 only.
    expect((await t.http.get('/v1/mcp').expect(405)).headers.allow).toBe('POST');
    const doc = (await t.http.get('/v1/openapi.json').expect(200)).body as OpenAPIObject;
    for (const method of ['get', 'delete'] as const) {
      const operation = doc.paths['/v1/mcp'][method]!;
      expect({ method, responses: Object.keys(operation.responses), security: operation.security }).toEqual({
        method,
        responses: ['405'],
        security: [],
      });
    }
    const auth = { authorization: `Bearer ${account.apiKey}` };
    expectProblem(await rawPost(t, auth, { jsonrpc: '1.0', id: 1, method: 'tools/list' }), 400, 'validationFailed');
    expectProblem(await rawPost(t, auth, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]), 400, 'validationFailed');
    expectProblem(await rawPost(t, auth, { jsonrpc: '2.0', id: 1, method: 'tools/list', extra: 1 }), 400, 'objectStrict');
    expectProblem(
      await rawPost(t, { ...auth, 'mcp-protocol-version': '1999-01-01' }, { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      400,
      'invalidMcpMessage',
    );
    // Without the SDK: any client that POSTs JSON gets JSON, whatever its Accept header; a notification gets a bare 202.
    const plain = await t.http.post('/v1/mcp').set(auth).send({ jsonrpc: '2.0', id: 'a', method: 'tools/list' }).expect(200);
    expect(plain.body).toMatchObject({ jsonrpc: '2.0', id: 'a', result: { tools: expect.any(Array) } });
    expect(plain.headers['x-ratelimit-limit']).toBeDefined();
    const notification = await t.http.post('/v1/mcp').set(auth).send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect({ status: notification.status, body: notification.text }).toEqual({ status: 202, body: '' });
  });
});

describe("MCP server: the rate limit is the key's, shared with REST", () => {
  let t: TestApp;

  beforeAll(async () => {
    // An hour-long "second" so the counts cannot straddle a window (as in rate-limit.e2e-spec.ts); 5 requests pass.
    t = await startApp({
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      RATE_LIMIT_PER_SECOND: '3',
      RATE_LIMIT_BURST: '5',
      RATE_LIMIT_PER_DAY: '1000',
      REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-mcp-rate-limit`,
    });
  });
  afterAll(() => t.close());

  it('refuses MCP calls once REST used up the key, and REST calls once MCP did, with 429 problems', async () => {
    const restFirst = await createAccount(t);
    for (let i = 0; i < 5; i++) await clientFor(t, restFirst).get('/v1/events').expect(200);
    const limited = await rawPost(t, { authorization: `Bearer ${restFirst.apiKey}` });
    expectProblem(limited, 429, 'rate_limited', '/v1/mcp');
    expect(limited.headers['retry-after']).toBeDefined();

    const mcpFirst = await createAccount(t);
    const client = await connect(t, { bearer: mcpFirst.apiKey }); // initialize + initialized: 2 requests
    await ok(client, 'list_recent_events'); // 3
    await client.listTools(); // 4
    await ok(client, 'find_properties'); // 5
    await expect(client.callTool({ name: 'list_recent_events', arguments: {} })).rejects.toThrow(/429/);
    await client.close();
    expectProblem(await clientFor(t, mcpFirst).get('/v1/events'), 429, 'rate_limited');
  });
});
