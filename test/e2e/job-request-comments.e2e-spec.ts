import { suite } from '../support/app';
import { feedEvents } from '../support/events';
import { createJob, provider } from '../support/job-requests';
import { expectProblem } from '../support/problem';
import { createProperty, pointersOf } from '../support/properties';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 1)]);
const MAX_BYTES = 4096;

describe('job requests: chat comments', () => {
  const s = suite({ env: { TEST_HELPERS_ENABLED: 'true', DOWNLOAD_MAX_BYTES: String(MAX_BYTES) } });
  let jobRequestId: string;
  const comments = (id = jobRequestId) => `/v1/jobRequests/${id}/comments`;

  beforeAll(async () => {
    jobRequestId = (await createJob(s.api, (await createProperty(s.api)).propertyId)).jobRequestId;
  });

  const fresh = async () => (await createJob(s.api, (await createProperty(s.api)).propertyId)).jobRequestId;

  it('takes a JSON message and answers 201 with the comment record', async () => {
    const res = await s.api.post(comments()).send({ message: 'Please also do the windows', languageCode: 'en' }).expect(201);
    expect(res.body).toEqual({
      commentId: expect.stringMatching(/^cmt_[0-9A-Z]{26}$/),
      jobRequestId,
      authorKind: 'host',
      authorEmail: null,
      message: 'Please also do the windows',
      languageCode: 'en',
      pictureUrl: null,
      createdAt: expect.any(String),
      updatedAt: res.body.createdAt,
    });
  });

  it('takes multipart/form-data with a message and an image, stores a copy and serves it back by URL behind the key', async () => {
    const res = await s.api
      .post(comments())
      .field('message', 'Stain on the sofa')
      .field('languageCode', 'pt-BR')
      .attach('file', PNG, { filename: 'sofa.png', contentType: 'application/octet-stream' })
      .expect(201);
    expect(res.body).toMatchObject({ authorKind: 'host', message: 'Stain on the sofa', languageCode: 'pt-BR' });
    const url = new URL(res.body.pictureUrl);
    expect(url.pathname).toBe(`/v1/jobRequests/${jobRequestId}/comments/${res.body.commentId}/picture`);
    const picture = await s.api
      .get(url.pathname)
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(picture.status).toBe(200);
    expect(picture.headers['content-type']).toBe('image/png'); // by its bytes, not the part's declared type
    expect(picture.headers['cache-control']).toContain('private');
    expect(Buffer.compare(picture.body as Buffer, PNG)).toBe(0);
    expectProblem(await s.otherApi.get(url.pathname), 404, 'notFound');
    expectProblem(await s.t.http.get(url.pathname), 401, 'unauthorized');
  });

  it('takes an image alone', async () => {
    const res = await s.api.post(comments()).attach('file', JPEG, 'photo.jpg').expect(201);
    expect(res.body).toMatchObject({ message: null, languageCode: null, pictureUrl: expect.stringContaining('/picture') });
  });

  it('refuses a file whose bytes are not an image, and stores nothing', async () => {
    const id = await fresh();
    const res = await s.api
      .post(comments(id))
      .field('message', 'see attached')
      .attach('file', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), { filename: 'x.png', contentType: 'image/png' });
    expectProblem(res, 400, 'validationFailed');
    expect(pointersOf(res)).toEqual(['#/file']);
    expect((await s.api.get(comments(id)).expect(200)).body.data).toEqual([]);
  });

  it('refuses a file over the cap with 413, cut off while streaming', async () => {
    const id = await fresh();
    const res = await s.api.post(comments(id)).attach('file', Buffer.concat([PNG, Buffer.alloc(MAX_BYTES)]), 'big.png');
    expectProblem(res, 413, 'payloadTooLarge');
    expect(res.body.detail).toContain(String(MAX_BYTES));
    await s.api
      .post(comments(id))
      .attach('file', Buffer.concat([PNG, Buffer.alloc(MAX_BYTES - PNG.length)]), 'fits.png')
      .expect(201);
  });

  it('refuses unknown multipart fields with objectStrict, like JSON', async () => {
    const id = await fresh();
    const text = await s.api.post(comments(id)).field('message', 'hi').field('colour', 'red');
    expectProblem(text, 400, 'objectStrict');
    expect(pointersOf(text)).toEqual(['#/colour']);
    const file = await s.api.post(comments(id)).field('message', 'hi').attach('photo', PNG, 'p.png');
    expectProblem(file, 400, 'objectStrict');
    expect(pointersOf(file)).toEqual(['#/photo']);
    expectProblem(await s.api.post(comments(id)).send({ message: 'hi', colour: 'red' }), 400, 'objectStrict');
    expect((await s.api.get(comments(id)).expect(200)).body.data).toEqual([]);
  });

  it('needs a message or a file; a file is multipart only', async () => {
    const id = await fresh();
    expect(pointersOf(await s.api.post(comments(id)).send({}).expect(400))).toEqual(['#/file', '#/message']);
    expect(pointersOf(await s.api.post(comments(id)).send({ languageCode: 'en' }).expect(400))).toEqual(['#/file', '#/message']);
    expect(pointersOf(await s.api.post(comments(id)).field('languageCode', 'en').expect(400))).toEqual(['#/file', '#/message']);
    expect(pointersOf(await s.api.post(comments(id)).send({ message: 'hi', file: 'base64…' }).expect(400))).toEqual(['#/file']);
    expect(pointersOf(await s.api.post(comments(id)).field('message', 'hi').field('file', 'not a file part').expect(400))).toEqual([
      '#/file',
    ]);
    expect(pointersOf(await s.api.post(comments(id)).send({ message: '' }).expect(400))).toEqual(['#/message']);
    expect(
      pointersOf(
        await s.api
          .post(comments(id))
          .send({ message: 'm'.repeat(5001) })
          .expect(400),
      ),
    ).toEqual(['#/message']);
    expect(pointersOf(await s.api.post(comments(id)).send({ message: 'hi', languageCode: 'english!' }).expect(400))).toEqual([
      '#/languageCode',
    ]);
    expect(pointersOf(await s.api.post(comments(id)).field('message', 'one').field('message', 'two').expect(400))).toEqual(['#/message']);
  });

  it('multipart is refused (415) on routes that take JSON only', async () => {
    const res = await s.api.post('/v1/properties').field('name', 'x');
    expectProblem(res, 415, 'unsupportedMediaType');
    const other = await s.api.post(`/v1/jobRequests/${jobRequestId}/oneOffTasks`).attach('file', PNG, 'p.png');
    expectProblem(other, 415, 'unsupportedMediaType');
  });

  it('a host comment writes no event; a provider’s writes comment.new', async () => {
    const id = await fresh();
    const host = (await s.api.post(comments(id)).send({ message: 'from the host' }).expect(201)).body;
    const theirs = (await provider(s.api, id).comment('from the cleaner').expect(201)).body;
    const events = await feedEvents(s.api, { until: (all) => all.some((e) => e.results[0]?.commentId === theirs.commentId) });
    const commentEvents = events.filter((e) => e.results[0]?.jobRequestId === id && e.eventName === 'comment.new');
    expect(commentEvents.map((e) => e.results[0].commentId)).toEqual([theirs.commentId]);
    expect(host.commentId).not.toBe(theirs.commentId);
  });

  describe('GET …/comments', () => {
    let id: string;
    let all: Array<{ commentId: string; updatedAt: string }>;

    beforeAll(async () => {
      id = await fresh();
      all = [];
      for (let i = 0; i < 5; i++)
        all.push(
          (
            await s.api
              .post(comments(id))
              .send({ message: `message ${i}` })
              .expect(201)
          ).body,
        );
    });

    it('lists oldest first in the envelope, nextCursor null and hasMore false', async () => {
      const res = await s.api.get(comments(id)).expect(200);
      expect(res.body).toEqual({ data: all, nextCursor: null, hasMore: false });
    });

    it('pages with offset and limit (the envelope still says no more)', async () => {
      const res = await s.api.get(`${comments(id)}?offset=1&limit=2`).expect(200);
      expect(res.body).toEqual({ data: all.slice(1, 3), nextCursor: null, hasMore: false });
      expect((await s.api.get(`${comments(id)}?offset=5`).expect(200)).body.data).toEqual([]);
    });

    it('filters by updatedAfter (strictly after)', async () => {
      const res = await s.api.get(`${comments(id)}?updatedAfter=${encodeURIComponent(all[2].updatedAt)}`).expect(200);
      expect(res.body.data.map((c: { commentId: string }) => c.commentId)).toEqual(
        all.filter((c) => c.updatedAt > all[2].updatedAt).map((c) => c.commentId),
      );
      expect((await s.api.get(`${comments(id)}?updatedAfter=2000-01-01T00:00:00Z`).expect(200)).body.data).toHaveLength(5);
    });

    it('validates the query', async () => {
      for (const [query, pointer] of [
        ['offset=-1', '#/offset'],
        ['offset=x', '#/offset'],
        ['limit=0', '#/limit'],
        ['limit=101', '#/limit'],
        ['updatedAfter=yesterday', '#/updatedAfter'],
      ]) {
        expect(pointersOf(await s.api.get(`${comments(id)}?${query}`).expect(400))).toEqual([pointer]);
      }
      expectProblem(await s.api.get(`${comments(id)}?cursor=x`), 400, 'objectStrict');
    });
  });

  it('an unknown or another account’s job is a 404 on every comment route', async () => {
    for (const client of [s.otherApi, s.api]) {
      const id = client === s.api ? 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV' : jobRequestId;
      expectProblem(await client.get(comments(id)), 404, 'notFound');
      expectProblem(await client.post(comments(id)).send({ message: 'hi' }), 404, 'notFound');
      expectProblem(await client.post(comments(id)).field('message', 'hi').attach('file', PNG, 'p.png'), 404, 'notFound');
      expectProblem(await client.get(`${comments(id)}/cmt_01ARZ3NDEKTSV4RRFFQ69G5FAV/picture`), 404, 'notFound');
    }
    const textOnly = (await s.api.post(comments()).send({ message: 'no picture' }).expect(201)).body;
    expectProblem(await s.api.get(`${comments()}/${textOnly.commentId}/picture`), 404, 'notFound');
  });
});
