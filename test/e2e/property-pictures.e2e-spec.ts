import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { readdir } from 'node:fs/promises';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { BLOB_STORE, BlobStore } from '../../src/platform/storage/blob-store';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp, twoAccounts } from '../support/app';
import { feedEvents } from '../support/events';
import { createProperty, uniq } from '../support/properties';
import { waitUntil } from '../support/wait';

/** A real 2x2 RGB PNG, built chunk by chunk. */
function tinyPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(2, 0); // width
  ihdr.writeUInt32BE(2, 4); // height
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A real 1x1 baseline JPEG. */
const TINY_JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/yQALCAABAAEBAREA/8wABgAQEAX/2gAIAQEAAD8A0s8g/9k=',
  'base64',
);

const PNG = tinyPng();

interface Source {
  url: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

async function startSource(): Promise<Source> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const send = (status: number, type: string, body: Buffer | string) => res.writeHead(status, { 'content-type': type }).end(body);
    switch (path) {
      case '/img.png':
        return send(200, 'image/png', PNG);
      case '/img.jpg':
        return send(200, 'image/jpeg', TINY_JPEG);
      case '/png-labelled-as-text':
        return send(200, 'text/plain', PNG);
      case '/page.html':
        return send(200, 'image/png', '<!doctype html><title>not an image</title>');
      case '/big.png':
        return send(200, 'image/png', Buffer.concat([PNG, Buffer.alloc(4096)]));
      case '/never.png':
        return; // never answers: only the downloader's deadline ends the request (close() drops the socket)
      case '/redirect':
        return res.writeHead(302, { location: '/img.png' }).end();
      case '/loop':
        return res.writeHead(302, { location: '/loop' }).end();
      default:
        return send(404, 'text/plain', 'nope');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('property pictures', () => {
  let t: TestApp;
  let source: Source;
  let account: TestAccount;
  let api: ApiClient;
  let otherApi: ApiClient;

  beforeAll(async () => {
    [t, source] = await Promise.all([startApp(), startSource()]);
    ({ account, api, otherApi } = await twoAccounts(t));
  });
  afterAll(async () => {
    await Promise.all([t.close(), source.close()]);
  });

  /** The served URL is absolute on PUBLIC_BASE_URL; fetch it through the test server by its path. */
  const pathOf = (url: string) => {
    expect(url.startsWith(`${t.config.publicBaseUrl}/v1/propertyPictures/`)).toBe(true);
    return url.slice(t.config.publicBaseUrl.length);
  };

  /** GET the served URL with a client's key, collecting the body as raw bytes. */
  const fetchContent = (client: ApiClient, url: string) =>
    client
      .get(pathOf(url))
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });

  it('downloads a png, stores a copy, lists it on the property and serves the exact bytes to the key holder', async () => {
    const property = await createProperty(api);
    const res = await api
      .post('/v1/propertyPictures')
      .send({ sourceId: 'pic-1', sourceUrl: `${source.url}/img.png`, propertyId: property.propertyId })
      .expect(201);
    expect(res.body).toEqual({
      pictureId: expect.stringMatching(/^pic_[0-9A-HJKMNP-TV-Z]{26}$/),
      propertyId: property.propertyId,
      sourceId: 'pic-1',
      sourceUrl: `${source.url}/img.png`,
      url: expect.stringMatching(new RegExp(`^${t.config.publicBaseUrl}/v1/propertyPictures/${res.body.pictureId}/content$`)),
      contentType: 'image/png',
      byteSize: PNG.length,
      createdAt: expect.any(String),
    });

    const got = await api.get(`/v1/properties/${property.propertyId}`).expect(200);
    expect(got.body.pictureUrls).toEqual([res.body.url]);
    const listed = await api.get('/v1/properties?limit=100').expect(200);
    expect(listed.body.data.find((p: { propertyId: string }) => p.propertyId === property.propertyId).pictureUrls).toEqual([res.body.url]);

    // With the account's key: the exact bytes, cacheable only privately.
    const served = await fetchContent(api, res.body.url).expect(200);
    expect(Buffer.compare(served.body as Buffer, PNG)).toBe(0);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['content-length']).toBe(String(PNG.length));
    expect(served.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['content-security-policy']).toBe("default-src 'none'; sandbox");

    // Like every route but health (spec 5.1): no key is a 401, another account's key a 404.
    const anonymous = await t.http.get(pathOf(res.body.url)).expect(401);
    expect(anonymous.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(anonymous.body.detail).toBe('Missing or invalid x-api-key');
    const foreign = await otherApi.get(pathOf(res.body.url)).expect(404);
    expect(foreign.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(foreign.body.code).toBe('notFound');
    // Nothing hangs below the content route.
    await api.get(`${pathOf(res.body.url)}/x`).expect(404);
  });

  it('a picture whose stored copy has gone missing answers 404, not 500', async () => {
    const property = await createProperty(api);
    const pic = await api
      .post('/v1/propertyPictures')
      .send({ sourceId: 'lost', sourceUrl: `${source.url}/img.png`, propertyId: property.propertyId })
      .expect(201);
    await t.app.get<BlobStore>(BLOB_STORE).delete(`pictures/${account.accountId}/${pic.body.pictureId}`);
    const res = await api.get(pathOf(pic.body.url)).expect(404);
    expect(res.body.code).toBe('notFound');
  });

  it('accepts a jpeg, by sniffing the bytes rather than trusting the source Content-Type', async () => {
    const property = await createProperty(api);
    const jpeg = await api
      .post('/v1/propertyPictures')
      .send({ sourceId: 'j', sourceUrl: `${source.url}/img.jpg`, sourcePropertyId: property.sourceId })
      .expect(201);
    expect(jpeg.body).toMatchObject({ contentType: 'image/jpeg', byteSize: TINY_JPEG.length, propertyId: property.propertyId });
    const mislabelled = await api
      .post('/v1/propertyPictures')
      .send({ sourceId: 'p', sourceUrl: `${source.url}/png-labelled-as-text`, propertyId: property.propertyId })
      .expect(201);
    expect(mislabelled.body.contentType).toBe('image/png');
    const got = await api.get(`/v1/properties/${property.propertyId}`).expect(200);
    expect(got.body.pictureUrls).toEqual([jpeg.body.url, mislabelled.body.url]);
  });

  it('follows a redirect to an image', async () => {
    const property = await createProperty(api);
    const res = await api
      .post('/v1/propertyPictures')
      .send({ sourceId: 'r', sourceUrl: `${source.url}/redirect`, propertyId: property.propertyId })
      .expect(201);
    expect(res.body).toMatchObject({ sourceUrl: `${source.url}/redirect`, byteSize: PNG.length, contentType: 'image/png' });
  });

  it.each([
    ['not an image', '/page.html', 'not_an_image', 'sourceUrl is not an image (jpeg, png, webp or gif)'],
    ['a 404 from the source', '/missing.png', 'http_status', 'sourceUrl could not be downloaded: the URL answered with HTTP 404'],
    ['a redirect loop', '/loop', 'too_many_redirects', 'sourceUrl could not be downloaded: the URL redirected more than 3 times'],
  ])('refuses %s with a 400 that says why', async (_name, path, failure, detail) => {
    const property = await createProperty(api);
    const res = await api
      .post('/v1/propertyPictures')
      .send({ sourceId: `f-${uniq()}`, sourceUrl: `${source.url}${path}`, propertyId: property.propertyId })
      .expect(400);
    expect(res.body).toMatchObject({ code: 'pictureDownloadFailed', failure, detail, errors: [{ pointer: '#/sourceUrl', detail }] });
    expect((await api.get(`/v1/properties/${property.propertyId}`).expect(200)).body.pictureUrls).toEqual([]);
  });

  it('reports an unreachable source', async () => {
    const property = await createProperty(api);
    const closed = await startSource();
    await closed.close();
    const res = await api
      .post('/v1/propertyPictures')
      .send({ sourceId: 'u', sourceUrl: `${closed.url}/img.png`, propertyId: property.propertyId })
      .expect(400);
    expect(res.body).toMatchObject({ code: 'pictureDownloadFailed', failure: 'unreachable' });
    expect(res.body.detail).toMatch(/^sourceUrl could not be downloaded: the URL could not be reached/);
  });

  describe('with small download limits', () => {
    let limited: TestApp;
    let limitedApi: ApiClient;
    beforeAll(async () => {
      limited = await startApp({ DOWNLOAD_MAX_BYTES: '1024', DOWNLOAD_TIMEOUT_MS: '400' });
      limitedApi = clientFor(limited, await createAccount(limited));
    });
    afterAll(() => limited.close());

    it('refuses an image larger than DOWNLOAD_MAX_BYTES and accepts one below', async () => {
      const property = await createProperty(limitedApi);
      const res = await limitedApi
        .post('/v1/propertyPictures')
        .send({ sourceId: 'big', sourceUrl: `${source.url}/big.png`, propertyId: property.propertyId })
        .expect(400);
      expect(res.body).toMatchObject({ failure: 'too_large', detail: 'sourceUrl could not be downloaded: the image is larger than 1 KB' });
      await limitedApi
        .post('/v1/propertyPictures')
        .send({ sourceId: 'small', sourceUrl: `${source.url}/img.png`, propertyId: property.propertyId })
        .expect(201);
    });

    it('gives up on a source that never answers after DOWNLOAD_TIMEOUT_MS', async () => {
      const property = await createProperty(limitedApi);
      const res = await limitedApi
        .post('/v1/propertyPictures')
        .send({ sourceId: 'slow', sourceUrl: `${source.url}/never.png`, propertyId: property.propertyId })
        .expect(400);
      expect(source.hits.get('/never.png')).toBe(1);
      expect(res.body).toMatchObject({
        failure: 'timeout',
        detail: 'sourceUrl could not be downloaded: the URL did not answer within 0.4 s',
      });
    });
  });

  describe('with the production URL policy', () => {
    let strict: TestApp;
    let strictApi: ApiClient;
    beforeAll(async () => {
      strict = await startApp({ ALLOW_PRIVATE_URLS: 'false' });
      strictApi = clientFor(strict, await createAccount(strict));
    });
    afterAll(() => strict.close());

    it.each([
      [
        'an IP literal',
        (port: string) => `http://127.0.0.1:${port}/img.png`,
        'sourceUrl is not allowed: host must be a domain name, not an IP address',
      ],
      [
        'localhost',
        (port: string) => `http://localhost:${port}/img.png`,
        'sourceUrl is not allowed: host is a local, internal or cloud-metadata name',
      ],
    ])('refuses %s without fetching it', async (_name, build, detail) => {
      const property = await createProperty(strictApi);
      const before = source.hits.get('/img.png') ?? 0;
      const res = await strictApi
        .post('/v1/propertyPictures')
        .send({ sourceId: 's', sourceUrl: build(new URL(source.url).port), propertyId: property.propertyId })
        .expect(400);
      expect(res.body).toMatchObject({ code: 'pictureDownloadFailed', failure: 'forbidden_url', detail });
      expect(source.hits.get('/img.png') ?? 0).toBe(before);
    });
  });

  describe('property reference (PropertyResolver)', () => {
    const post = (body: Record<string, unknown>, client = api) =>
      client.post('/v1/propertyPictures').send({ sourceId: `x-${uniq()}`, sourceUrl: `${source.url}/img.png`, ...body });

    it('neither or both identifiers → 400 naming both pointers, before any download', async () => {
      const property = await createProperty(api);
      const before = source.hits.get('/img.png') ?? 0;
      const neither = await post({}).expect(400);
      expect(neither.body.code).toBe('validationFailed');
      expect(neither.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['#/propertyId', '#/sourcePropertyId']);
      const both = await post({ propertyId: property.propertyId, sourcePropertyId: property.sourceId }).expect(400);
      expect(both.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['#/propertyId', '#/sourcePropertyId']);
      expect(both.body.detail).toMatch(/not both/);
      expect(source.hits.get('/img.png') ?? 0).toBe(before);
    });

    it('unknown or another account’s property → 404 naming the identifier', async () => {
      const mine = await createProperty(api);
      const unknownId = await post({ propertyId: 'prop_01ARZ3NDEKTSV4RRFFQ69G5FAV' }).expect(404);
      expect(unknownId.body.detail).toBe('Property with propertyId prop_01ARZ3NDEKTSV4RRFFQ69G5FAV was not found');
      const unknownSource = await post({ sourcePropertyId: 'abc' }).expect(404);
      expect(unknownSource.body.detail).toBe('Property with sourcePropertyId abc was not found');
      await post({ propertyId: mine.propertyId }, otherApi).expect(404);
      const foreign = await post({ sourcePropertyId: mine.sourceId }, otherApi).expect(404);
      expect(foreign.body.detail).toBe(`Property with sourcePropertyId ${mine.sourceId} was not found`);
    });

    it('validates the body strictly', async () => {
      const property = await createProperty(api);
      const unknown = await post({ propertyId: property.propertyId, caption: 'x' }).expect(400);
      expect(unknown.body.code).toBe('objectStrict');
      expect(unknown.body.errors).toEqual([{ pointer: '#/caption', detail: expect.any(String) }]);
      const missing = await api.post('/v1/propertyPictures').send({ propertyId: property.propertyId }).expect(400);
      expect(missing.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['#/sourceId', '#/sourceUrl']);
      const badUrl = await post({ propertyId: property.propertyId, sourceUrl: 'ftp://example.com/a.png' }).expect(400);
      expect(badUrl.body.errors[0].pointer).toBe('#/sourceUrl');
      await post({ propertyId: 42 }).expect(400);
    });
  });

  it('a second picture with the same sourceId on the same property is a 409 with existingId; another property may reuse it', async () => {
    const property = await createProperty(api);
    const first = await api
      .post('/v1/propertyPictures')
      .send({ sourceId: 'dup', sourceUrl: `${source.url}/img.png`, propertyId: property.propertyId })
      .expect(201);
    const before = source.hits.get('/img.jpg') ?? 0;
    const dup = await api
      .post('/v1/propertyPictures')
      .send({ sourceId: 'dup', sourceUrl: `${source.url}/img.jpg`, propertyId: property.propertyId })
      .expect(409);
    expect(dup.body).toMatchObject({ code: 'conflict', title: 'Conflict', existingId: first.body.pictureId });
    expect(source.hits.get('/img.jpg') ?? 0).toBe(before);
    const second = await createProperty(api);
    await api
      .post('/v1/propertyPictures')
      .send({ sourceId: 'dup', sourceUrl: `${source.url}/img.png`, propertyId: second.propertyId })
      .expect(201);
    // Delete first to replace.
    await api.delete(`/v1/propertyPictures/${first.body.pictureId}`).expect(204);
    await api
      .post('/v1/propertyPictures')
      .send({ sourceId: 'dup', sourceUrl: `${source.url}/img.jpg`, propertyId: property.propertyId })
      .expect(201);
  });

  it('concurrent uploads of one sourceId: one 201, the rest 409, and no orphan copies', async () => {
    const racer = await createAccount(t);
    const racerApi = clientFor(t, racer);
    const property = await createProperty(racerApi);
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        racerApi
          .post('/v1/propertyPictures')
          .send({ sourceId: 'race', sourceUrl: `${source.url}/img.png`, propertyId: property.propertyId }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const winner = results.find((r) => r.status === 201)!.body.pictureId;
    for (const r of results.filter((r) => r.status === 409)) expect(r.body.existingId).toBe(winner);
    expect((await racerApi.get(`/v1/properties/${property.propertyId}`).expect(200)).body.pictureUrls).toHaveLength(1);
    // The losers' copies were put before their transaction failed, and removed after.
    const dir = join(t.config.blobStorageDir, 'pictures', racer.accountId);
    const blobs = await readdir(dir);
    expect(blobs.filter((name) => !name.startsWith('.') && !name.endsWith('.meta.json'))).toEqual([winner]);
  });

  it('delete removes the picture, its stored copy and its URL from the property; events record both', async () => {
    const evAccount = await createAccount(t);
    const ev = clientFor(t, evAccount);
    const property = await createProperty(ev);
    const pic = await ev
      .post('/v1/propertyPictures')
      .send({ sourceId: 'd', sourceUrl: `${source.url}/img.png`, propertyId: property.propertyId })
      .expect(201);
    await ev.get(pathOf(pic.body.url)).expect(200);

    await otherApi.delete(`/v1/propertyPictures/${pic.body.pictureId}`).expect(404);
    await ev.delete('/v1/propertyPictures/pic_01ARZ3NDEKTSV4RRFFQ69G5FAV').expect(404);
    await ev.delete('/v1/propertyPictures/not-an-id').expect(404);

    const res = await ev.delete(`/v1/propertyPictures/${pic.body.pictureId}`).expect(204);
    expect(res.text).toBe('');
    await ev.delete(`/v1/propertyPictures/${pic.body.pictureId}`).expect(404);
    expect((await ev.get(`/v1/properties/${property.propertyId}`).expect(200)).body.pictureUrls).toEqual([]);
    const gone = await ev.get(pathOf(pic.body.url)).expect(404);
    expect(gone.headers['content-type']).toContain('application/problem+json');
    const store = t.app.get<BlobStore>(BLOB_STORE);
    // The copy goes after the commit (an after-commit task), so the test waits for it.
    await waitUntil(
      async () => (await store.get(`pictures/${evAccount.accountId}/${pic.body.pictureId}`)) === undefined,
      10_000,
      'the stored copy to be deleted',
    );

    const events = await feedEvents(ev, { atLeast: 3 });
    expect(events.map((e) => e.eventName)).toEqual(['property.create', 'propertyPicture.create', 'propertyPicture.delete']);
    expect(events[1].results).toEqual([pic.body]);
    expect(events[2].results).toEqual([pic.body]);
  });

  it('deleting a property deletes its pictures and their copies in the same transaction, with an event each', async () => {
    const evAccount = await createAccount(t);
    const ev = clientFor(t, evAccount);
    const property = await createProperty(ev);
    const a = await ev
      .post('/v1/propertyPictures')
      .send({ sourceId: 'a', sourceUrl: `${source.url}/img.png`, propertyId: property.propertyId })
      .expect(201);
    const b = await ev
      .post('/v1/propertyPictures')
      .send({ sourceId: 'b', sourceUrl: `${source.url}/img.jpg`, propertyId: property.propertyId })
      .expect(201);
    const before = (await ev.get(`/v1/properties/${property.propertyId}`).expect(200)).body;
    expect(before.pictureUrls).toEqual([a.body.url, b.body.url]);

    await ev.delete(`/v1/properties/${property.propertyId}`).expect(204);
    await ev.delete(`/v1/propertyPictures/${a.body.pictureId}`).expect(404);
    await ev.get(pathOf(b.body.url)).expect(404);
    const store = t.app.get<BlobStore>(BLOB_STORE);
    for (const id of [a.body.pictureId, b.body.pictureId]) {
      await waitUntil(
        async () => (await store.get(`pictures/${evAccount.accountId}/${id}`)) === undefined,
        10_000,
        `the copy of ${id} to be deleted`,
      );
    }

    const events = await feedEvents(ev, { atLeast: 6 });
    expect(events.map((e) => e.eventName)).toEqual([
      'property.create',
      'propertyPicture.create',
      'propertyPicture.create',
      'propertyPicture.delete',
      'propertyPicture.delete',
      'property.delete',
    ]);
    expect(events[3].results).toEqual([a.body]);
    expect(events[4].results).toEqual([b.body]);
    expect(events[5].results).toEqual([before]);
  });

  it('the content route answers 404 problems for unknown and malformed ids (with a key)', async () => {
    for (const id of ['pic_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'whatever', 'prop_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'pic_%00']) {
      const res = await api.get(`/v1/propertyPictures/${id}/content`).expect(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('notFound');
    }
    // Without a key the guard answers first, whatever the id.
    await t.http.get('/v1/propertyPictures/whatever/content').expect(401);
  });
});
