import type { OpenAPIObject } from '@nestjs/swagger';
import { compileErrors, validate } from '@readme/openapi-parser';
import { startApp, TestApp } from '../support/app';
import { documentedRoutes, registeredRoutes, schemaValidator } from '../support/openapi';

/**
 * Routes the app serves that are not part of the API the document describes, and why. Keep this
 * list short: a new API route is documented by @RouteDoc on its handler (docs/operations.md,
 * "Documenting a route").
 */
const NOT_API = [
  { pattern: /^GET \/docs(\/|$)/, why: 'the interactive reference itself (Swagger UI files)' },
  { pattern: /^[A-Z]+ \/console(\/|$)/, why: "the account console's HTML pages (docs/console.md), not the API" },
  { pattern: /^GET \/llms(\.txt$|\/)/, why: 'the documentation index for assistants (llmstxt.org) and its Markdown pages' },
];

const HOW_TO =
  'Document each route with @RouteDoc on its handler (summary, response, problems, example); see "Documenting a route" in docs/operations.md.';

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: OpenAPIObject;

  beforeAll(async () => {
    t = await startApp({ TEST_HELPERS_ENABLED: 'true' });
    const res = await t.http
      .get('/v1/openapi.json')
      .expect(200)
      .expect('content-type', /application\/json/);
    doc = res.body;
  });
  afterAll(() => t.close());

  it('is served without a key and validates as OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  it('marks the test helpers test-mode only (x-test-mode-only, said in the description), and only them', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const operation of Object.values(item as Record<string, Record<string, unknown>>)) {
        const helper = path.startsWith('/v1/testHelpers/');
        expect({ path, testModeOnly: operation['x-test-mode-only'] ?? false }).toEqual({ path, testModeOnly: helper });
        if (helper) expect(operation.description).toMatch(/^Test mode only: /);
      }
    }
  });

  it('documents every route the app registers, and only those', () => {
    const registered = registeredRoutes(t.app).filter((route) => !NOT_API.some(({ pattern }) => pattern.test(route)));
    const documented = documentedRoutes(doc);
    const missing = registered.filter((route) => !documented.includes(route));
    const phantom = documented.filter((route) => !registered.includes(route));
    expect({ missing, phantom, hint: missing.length + phantom.length ? HOW_TO : '' }).toEqual({ missing: [], phantom: [], hint: '' });
  });

  it('has a @RouteDoc on every route (no x-undocumented operation)', () => {
    const undocumented = documentedRoutes(doc).filter((route) => {
      const [method, path] = route.split(' ');
      return (doc.paths[path] as Record<string, Record<string, unknown>>)[method.toLowerCase()]['x-undocumented'];
    });
    expect({ undocumented, hint: undocumented.length ? HOW_TO : '' }).toEqual({ undocumented: [], hint: '' });
  });

  it('states the key, the envelope, Idempotency-Key, rate-limit headers, problems and webhooks', () => {
    expect(doc.components?.securitySchemes?.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    const create = doc.paths['/v1/properties'].post!;
    expect(create.security).toEqual([{ apiKey: [] }]);
    expect(create.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(Object.keys((create.responses['201'] as { headers: object }).headers)).toEqual(
      expect.arrayContaining(['x-request-id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Idempotent-Replayed']),
    );
    expect(create.responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    expect(doc.paths['/v1/health'].get!.security).toEqual([]);
    expect(doc.components?.schemas?.PropertyPage).toMatchObject({ required: ['data', 'nextCursor', 'hasMore'] });
    expect(Object.keys(doc.webhooks ?? {})).toEqual(expect.arrayContaining(['property.create', 'jobRequest.completed', 'comment.new']));
    const delivery = (doc.webhooks as Record<string, { post: { parameters: Array<{ name: string }> } }>)['booking.create'].post;
    expect(delivery.parameters.map((p) => p.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
      'webhook-retry-count',
      'webhook-max-retries',
    ]);
  });

  it('takes request schemas from the DTOs class-validator rules (query parameters included)', () => {
    const schemas = doc.components!.schemas as Record<
      string,
      { required?: string[]; properties: Record<string, unknown>; additionalProperties?: boolean }
    >;
    expect(schemas.CreatePropertyDto.required).toEqual([
      'sourceId',
      'name',
      'countryCode',
      'timeZone',
      'location',
      'beds',
      'bedrooms',
      'bathrooms',
    ]);
    expect(schemas.CreatePropertyDto.additionalProperties).toBe(false);
    expect(schemas.CreatePropertyDto.properties.name).toEqual({ type: 'string', minLength: 3, maxLength: 100 });
    const list = doc.paths['/v1/bookings'].get!.parameters as Array<{ name: string; required?: boolean; schema?: object }>;
    expect(list.find((p) => p.name === 'dateFrom')).toMatchObject({ required: true, schema: { format: 'date-time' } });
    expect(list.find((p) => p.name === 'limit')).toMatchObject({
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    });
  });

  it('has examples that match their own schemas', () => {
    const check = schemaValidator(doc);
    const failures: string[] = [];
    const content = (where: string, media: Record<string, { schema?: object; example?: unknown }> | undefined) => {
      for (const [type, { schema, example }] of Object.entries(media ?? {})) {
        if (schema && example !== undefined) {
          const error = check(schema, example);
          if (error) failures.push(`${where} ${type}: ${error}`);
        }
      }
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(
        item as Record<string, { requestBody?: { content: never }; responses: Record<string, { content?: never }> }>,
      )) {
        content(`${method} ${path} request`, op.requestBody?.content);
        for (const [status, response] of Object.entries(op.responses)) content(`${method} ${path} ${status}`, response.content);
      }
    }
    for (const [name, response] of Object.entries(doc.components!.responses as Record<string, { content?: never }>))
      content(name, response.content);
    for (const [name, item] of Object.entries(doc.webhooks as unknown as Record<string, { post: { requestBody: { content: never } } }>))
      content(name, item.post.requestBody.content);
    expect(failures).toEqual([]);
  });
});
