import type { OpenAPIObject } from '@nestjs/swagger';
import request from 'supertest';
import { apiModules } from '../../src/app.module';
import { loadConfig } from '../../src/config/config';
import { startApp, TestApp } from '../support/app';
import { documentedRoutes, schemaValidator } from '../support/openapi';
import {
  documentedOperations,
  exampleRank,
  ExampleRequests,
  Op,
  startExampleHosts,
  TestModeExamples,
  unknownIdLike,
} from '../support/openapi-examples';
import { declaredRoutes } from '../support/openapi-operations';

/**
 * Sends every documented example request, in an order that creates what later examples name
 * (the EXAMPLE placeholder ids are swapped for the real ones: test/support/openapi-examples.ts), and
 * checks each answer against the documented status, headers and schema: one test per operation, so
 * a failure names its route. The routes come from the controllers' decorators (known before the app
 * starts, as jest needs); the first test checks the document lists exactly those.
 */
const ROUTES = declaredRoutes(apiModules(loadConfig(process.env))).sort((a, b) => exampleRank(a) - exampleRank(b));

describe('OpenAPI contract: every documented example request gets the documented answer', () => {
  let t: TestApp;
  let doc: OpenAPIObject;
  let operations: Map<string, Op>;
  let check: ReturnType<typeof schemaValidator>;
  let hosts: Awaited<ReturnType<typeof startExampleHosts>>;
  let examples: ExampleRequests;
  let testModeExamples: TestModeExamples;

  beforeAll(async () => {
    t = await startApp();
    doc = (await t.http.get('/v1/openapi.json').expect(200)).body;
    operations = new Map(documentedOperations(doc).map((op) => [op.key, op]));
    check = schemaValidator(doc);
    hosts = await startExampleHosts();
    examples = await ExampleRequests.forNewAccount(t, hosts.urls);
    testModeExamples = await TestModeExamples.of(t, examples, hosts.urls);
  });
  afterAll(async () => {
    await t.close();
    await hosts.close();
  });

  function expectDocumented(op: Op, res: request.Response, status: string) {
    const documented = op.spec.responses[status];
    expect({ op: op.key, status: res.status, documented: Object.keys(op.spec.responses) }).toMatchObject({
      op: op.key,
      status: Number(status),
    });
    const response = documented.$ref
      ? (doc.components!.responses as Record<string, typeof documented>)[documented.$ref.split('/').pop()!]
      : documented;
    for (const name of Object.keys(response.headers ?? {})) {
      if (name !== 'Idempotent-Replayed' && name !== 'Retry-After')
        expect({ op: op.key, header: name, value: res.headers[name.toLowerCase()] }).toMatchObject({ value: expect.any(String) });
    }
    const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? [];
    if (!mediaType) return expect({ op: op.key, body: res.text }).toEqual({ op: op.key, body: '' });
    if (mediaType.startsWith('image/')) return expect(res.headers['content-type']).toMatch(/^image\//);
    expect(res.headers['content-type']).toContain(mediaType);
    expect({ op: op.key, errors: check(media!.schema, res.body) }).toEqual({ op: op.key, errors: null });
  }

  it('documents exactly the routes the controllers declare', () => {
    expect(documentedRoutes(doc)).toEqual([...ROUTES].sort());
  });

  it.each(ROUTES)('%s answers its example as documented, and 404 for unknown ids where documented', async (key) => {
    const op = operations.get(key);
    if (!op) throw new Error(`${key} is not in the document`);
    if (op.key === 'GET /v1/jobRequests/{jobRequestId}/comments/{commentId}/picture') await examples.createCommentWithPicture();
    // A route that only refuses (GET and DELETE /v1/mcp: 405) documents that problem as its one answer.
    const success = Object.keys(op.spec.responses).find((status) => status.startsWith('2')) ?? Object.keys(op.spec.responses)[0];
    // A test-mode-only operation (a test helper) is sent with a test key, on a sandbox job in the status it needs.
    const res = op.spec['x-test-mode-only'] ? await testModeExamples.send(t, op) : await examples.send(op);
    if (res.status < 300) examples.record(op, res);
    expectDocumented(op, res, success);

    if (op.spec.responses['404'] && op.path.includes('{')) {
      const unknown = Object.fromEntries(
        (op.spec.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, unknownIdLike(String(p.example))]),
      );
      const res = op.spec['x-test-mode-only'] ? await testModeExamples.send(t, op, unknown) : await examples.send(op, { path: unknown });
      expectDocumented(op, res, '404');
    }
  });
});
