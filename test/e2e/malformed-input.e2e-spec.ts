import type { OpenAPIObject } from '@nestjs/swagger';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { TINY_JPEG } from '../support/images';
import { schemaValidator } from '../support/openapi';
import { documentedOperations, ExampleRequests, Op, startExampleHosts, unknownIdLike } from '../support/openapi-examples';

/**
 * "Every route answers bad input with the spec's problem document, never a 500", proved systematically:
 * each documented operation gets malformed variants of its documented example (body fields, query
 * parameters, path ids, the Idempotency-Key, the comment route's multipart body), sent with a valid key
 * (the legacy routes with the legacy key). Every answer must be below 500 and every 4xx a problem document
 * (application/problem+json, type, title, status = the HTTP status, detail); a variant the documented
 * schema refuses must not succeed, and a path id naming nothing the account may see is a 404.
 * A variant the schema accepts (`0` where zero is allowed, an optional field dropped) may succeed; the
 * schema cannot state every rule (a propertyId or a sourcePropertyId, a message or a file), so it may
 * also be refused. Strings PostgreSQL cannot store (U+0000, a lone surrogate) are always refused.
 */

interface Variant {
  op: Op;
  name: string;
  /** The documented schema accepts it: a 2xx is allowed. */
  mayBeValid: boolean;
  /** The one status it must get. */
  status?: number;
  send: () => request.Test;
}

type Path = Array<string | number>;

const nestedArray = (depth: number): unknown => {
  let value: unknown = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
};
/** What replaces each body field in turn. */
const BAD_VALUES: Array<[string, unknown]> = [
  ['null', null],
  ['true', true],
  ['0', 0],
  ['-1', -1],
  ['1.5', 1.5],
  ['1e308', 1e308],
  ['""', ''],
  ['"x" x 10,001', 'x'.repeat(10_001)],
  ['"\\u0000"', '\u0000'],
  ['"\\ud800" (a lone surrogate)', '\ud800'],
  ['[]', []],
  ['{}', {}],
  ['[[[[[]]]]]', [[[[[]]]]]],
  ['a 200-level nested array', nestedArray(200)],
];
/** The same value in the other type: a string where a number (or boolean) is expected, a number where a string is. */
function retyped(value: unknown): Array<[string, unknown]> {
  if (typeof value === 'number' || typeof value === 'boolean') return [[`"${value}" (as a string)`, String(value)]];
  if (typeof value === 'string')
    return [['123 (a number for a string)', Number.isFinite(Number(value)) && value !== '' ? Number(value) : 123]];
  return [];
}
/** Strings refused in any body or query (invalidCharacters), which no schema states. */
const UNSTORABLE: unknown[] = ['\u0000', '\ud800'];
/** Whole bodies that are no JSON object. */
const NOT_OBJECTS = ['[]', '"x"', 'null', '123'];
/** What replaces each query parameter in turn ("repeated" sends it twice). */
const BAD_QUERY_VALUES: Array<[string, string]> = [
  ['""', ''],
  ['abc', 'abc'],
  ['-1', '-1'],
  ['1e3', '1e3'],
  ['0x10', '0x10'],
  ['2,000 chars', 'x'.repeat(2000)],
  ['%00', '\u0000'],
];
/** What replaces the Idempotency-Key header of the creates that take one ("repeated" sends it twice). */
const BAD_IDEMPOTENCY_KEYS: Array<[string, string | string[]]> = [
  ['""', ''],
  ['256 chars', 'k'.repeat(256)],
  ['with a space', 'retry me'],
  ['non-ASCII', 'clé'],
  ['repeated', ['key-1', 'key-2']],
];
const UNKNOWN = 'fuzzUnknownField';
/** The field a create refuses to repeat (409), made unique per variant so valid variants reach the insert. */
const UNIQUE_FIELDS: Record<string, string> = {
  'POST /v1/properties': 'sourceId',
  'POST /v1/bookings': 'sourceBookingId',
  'POST /v1/webhooks': 'url',
  'POST /v1/properties/{propertyId}/calendarFeeds': 'url',
};
/** Requests in flight at once: enough to keep the test quick, few enough for a 2-core machine. */
const BATCH = 16;

const clone = <T>(value: T): T => structuredClone(value);
const at = (path: Path) => path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('');

function getAt(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, part) => (node as Record<string | number, unknown>)[part], root);
}
function withValue(root: unknown, path: Path, value: unknown): unknown {
  const copy = clone(root);
  (getAt(copy, path.slice(0, -1)) as Record<string | number, unknown>)[path[path.length - 1]] = value;
  return copy;
}
function without(root: unknown, path: Path): unknown {
  const copy = clone(root);
  const parent = getAt(copy, path.slice(0, -1)) as Record<string, unknown>;
  delete parent[path[path.length - 1] as string];
  return copy;
}
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Every field of the body: each top-level one, and inside each nested object or array its first item and
 * that item's fields, at any depth (the examples are shallow, so this stays a few hundred per route at most).
 */
function fieldPaths(node: unknown, prefix: Path = []): Path[] {
  const children: Array<[string | number, unknown]> = isObject(node)
    ? Object.entries(node)
    : Array.isArray(node) && node.length > 0
      ? [[0, node[0]]]
      : [];
  return children.flatMap(([key, child]) => [[...prefix, key], ...fieldPaths(child, [...prefix, key])]);
}
/** The objects of the body an unknown field can be added to: the body itself and every nested object on those paths. */
function objectPaths(body: Record<string, unknown>): Path[] {
  return [[], ...fieldPaths(body).filter((path) => isObject(getAt(body, path)))];
}

/** A query value as the schema sees it: digits become a number only where the schema wants one. */
function queryValue(schema: { type?: string }, raw: string | string[]): unknown {
  if (Array.isArray(raw)) return raw;
  if ((schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  return raw;
}

/**
 * Sent with a live key, then with a test key (issue 35: every /v1 route behaves the same in test mode), whose
 * "other account" is the same account's live data: the sandbox must not see it either. The test key's run
 * varies top-level body fields only (the validation is the same code; the nested variants are the live run's),
 * so the second run costs a fraction of the first.
 */
describe.each([
  ['a live key', false],
  ['a test key', true],
])('Malformed input with %s: every documented operation answers a problem document, never a 500', (_kind, testMode) => {
  let t: TestApp;
  let doc: OpenAPIObject;
  let ops: Op[];
  let check: ReturnType<typeof schemaValidator>;
  let hosts: Awaited<ReturnType<typeof startExampleHosts>>;
  /** The account sending every variant, and another one whose real ids it must not see. */
  let mine: ExampleRequests;
  let theirs: ExampleRequests;

  beforeAll(async () => {
    // Thousands of requests from one key in a few seconds: far above the test environment's generous limit.
    t = await startApp({ RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '200000' });
    doc = (await t.http.get('/v1/openapi.json').expect(200)).body;
    ops = documentedOperations(doc);
    check = schemaValidator(doc);
    hosts = await startExampleHosts();
    if (testMode) {
      theirs = await ExampleRequests.forNewAccount(t, hosts.urls);
      mine = await ExampleRequests.forSandboxOf(t, theirs, hosts.urls);
    } else {
      mine = await ExampleRequests.forNewAccount(t, hosts.urls);
      theirs = await ExampleRequests.forNewAccount(t, hosts.urls);
    }
    await mine.createExampleResources(ops);
    await theirs.createExampleResources(ops);
  });
  afterAll(async () => {
    await t.close();
    await hosts.close();
  });

  /** What is wrong with the answer to a variant, if anything. */
  function fault(variant: Variant, res: request.Response): string | undefined {
    if (res.status >= 500) return `${res.status} ${res.body?.code ?? res.text.slice(0, 200)}`;
    // Every answer the key guard gave (all but a path that matches no route) says test mode.
    const unrouted = typeof res.body?.detail === 'string' && res.body.detail.startsWith('No route matches');
    if (
      testMode &&
      !variant.op.path.startsWith('/legacy/') &&
      variant.op.spec.security?.length &&
      !unrouted &&
      res.headers['x-test-mode'] !== 'true'
    )
      return `${res.status} without X-Test-Mode: true`;
    // A 429 hides the answer under test: the suite's limits are raised so none happens.
    if (res.status === 429) return '429 rate limited: the variant was not tested';
    if (variant.status !== undefined && res.status !== variant.status) return `${res.status} ${res.body?.code}, expected ${variant.status}`;
    if (res.status < 400) return variant.mayBeValid && res.status < 300 ? undefined : `${res.status}: accepted though invalid`;
    const body = res.body as Record<string, unknown>;
    const problems = [
      /^application\/problem\+json/.test(res.headers['content-type'] ?? '') ? '' : `content-type ${res.headers['content-type']}`,
      typeof body.type === 'string' && body.type ? '' : 'no type',
      typeof body.title === 'string' && body.title ? '' : 'no title',
      body.status === res.status ? '' : `status member ${String(body.status)}`,
      typeof body.detail === 'string' && body.detail ? '' : 'no detail',
    ].filter(Boolean);
    return problems.length ? `${res.status} not a problem document: ${problems.join(', ')}` : undefined;
  }

  /** Sends the variants BATCH at a time; returns one line per variant answered wrongly, naming the operation and the variant. */
  async function run(variants: Variant[]): Promise<string[]> {
    const failures: string[] = [];
    for (let i = 0; i < variants.length; i += BATCH) {
      await Promise.all(
        variants.slice(i, i + BATCH).map(async (variant) => {
          const res = await variant.send();
          const problem = fault(variant, res);
          if (problem) failures.push(`${variant.op.key} ${variant.name}: ${problem}`);
        }),
      );
    }
    return failures;
  }

  let serial = 0;
  /** A create whose example's natural key is taken would stop at its 409: each variant gets its own. */
  function ownNaturalKey(op: Op, body: unknown): unknown {
    const field = UNIQUE_FIELDS[op.key];
    const example = mine.exampleBody(op) as Record<string, unknown> | undefined;
    if (!field || !isObject(body) || body[field] !== example?.[field]) return body;
    return { ...body, [field]: `${String(body[field])}-fuzz${++serial}` };
  }

  function bodyVariants(op: Op): Variant[] {
    const media = op.spec.requestBody?.content['application/json'];
    if (!media?.schema) {
      // A route without a body (a delete, disable, cancel, sync) refuses one with fields, or one that is no object.
      if (op.method === 'get') return [];
      return [`{"${UNKNOWN}":1}`, ...NOT_OBJECTS].map((text) => ({
        op,
        name: `body is ${text} (the route takes none)`,
        mayBeValid: false,
        send: () => mine.send(op, { rawBody: text }),
      }));
    }
    const schema = media.schema;
    const example = (mine.exampleBody(op) ?? {}) as Record<string, unknown>;
    const variant = (name: string, body: unknown): Variant => {
      body = ownNaturalKey(op, body);
      return {
        op,
        name: `body ${name}`,
        mayBeValid: check(schema, body) === null,
        send: () => mine.send(op, { rawBody: JSON.stringify(body) }),
      };
    };
    const variants: Variant[] = [];
    for (const path of fieldPaths(example).filter((p) => !testMode || p.length === 1)) {
      for (const [name, value] of [...BAD_VALUES, ...retyped(getAt(example, path))]) {
        const bad = variant(`${at(path)} = ${name}`, withValue(example, path, value));
        // The schema cannot say it, but a string PostgreSQL cannot store as sent is a 400 anywhere in a body (README).
        variants.push(UNSTORABLE.includes(value) ? { ...bad, mayBeValid: false } : bad);
      }
      if (typeof path[path.length - 1] === 'string') variants.push(variant(`${at(path)} dropped`, without(example, path)));
    }
    // Bodies are strict at any depth, so the schema refuses these, except inside a free-form object (a legacy
    // record's `data` and `changes`, validated record by record after the batch is accepted: docs/legacy.md).
    for (const path of objectPaths(example)) {
      const body = clone(example);
      (getAt(body, path) as Record<string, unknown>)[UNKNOWN] = 1;
      variants.push(variant(`${at(path) || '(top level)'} + unknown field`, body));
    }
    for (const text of NOT_OBJECTS)
      variants.push({ op, name: `body is ${text}`, mayBeValid: false, send: () => mine.send(op, { rawBody: text }) });
    return variants;
  }

  function queryVariants(op: Op): Variant[] {
    const isPublic = !op.spec.security?.length;
    const variants: Variant[] = [
      {
        op,
        name: `query + unknown parameter`,
        mayBeValid: isPublic, // GET /v1/health takes whatever load balancers append
        send: () => mine.send(op, { query: withParam(mine.exampleQuery(op), UNKNOWN, ['1']) }),
      },
    ];
    for (const param of (op.spec.parameters ?? []).filter((p) => p.in === 'query')) {
      const schema = (param.schema ?? {}) as { type?: string };
      const example = mine.exampleQuery(op).get(param.name) ?? '1';
      const cases: Array<[string, string[]]> = [
        ...BAD_QUERY_VALUES.map(([name, value]): [string, string[]] => [name, [value]]),
        ['repeated', [example, example]],
      ];
      for (const [name, values] of cases) {
        const value = values.length === 1 ? values[0] : values;
        const mayBeValid = !UNSTORABLE.includes(value) && check(schema, queryValue(schema, value)) === null;
        variants.push({
          op,
          name: `query ${param.name}=${name}`,
          mayBeValid,
          send: () => mine.send(op, { query: withParam(mine.exampleQuery(op), param.name, values) }),
        });
      }
    }
    return variants;
  }

  function withParam(query: URLSearchParams, name: string, values: string[]): string {
    query.delete(name);
    for (const value of values) query.append(name, value);
    return query.toString();
  }

  function pathVariants(op: Op): Variant[] {
    const variants: Variant[] = [];
    for (const param of (op.spec.parameters ?? []).filter((p) => p.in === 'path')) {
      const placeholder = String(param.example);
      const mineId = mine.swap(placeholder);
      const prefix = mineId.split('_')[0];
      // Ids are opaque: any id naming nothing this account owns is a 404, however it is formed (never a 400 or 403).
      const cases: Array<[string, string]> = [
        ['a 1,000-char id', `${prefix}_${'A'.repeat(1000 - prefix.length - 1)}`],
        ['%00', '%00'],
        ['..', '..'],
        ['an id of another kind', placeholder.startsWith('prop_') ? mine.realId('bookingId') : mine.realId('propertyId')],
        ['a well-formed id naming nothing', unknownIdLike(mineId)],
        ["another account's real id", theirs.swap(placeholder)],
      ];
      for (const [name, id] of cases)
        variants.push({
          op,
          name: `path ${param.name} = ${name}`,
          mayBeValid: false,
          status: 404,
          send: () => mine.send(op, { path: { [param.name]: id } }),
        });
    }
    return variants;
  }

  function headerVariants(op: Op): Variant[] {
    if (!(op.spec.parameters ?? []).some((p) => p.$ref?.endsWith('/IdempotencyKey'))) return [];
    return BAD_IDEMPOTENCY_KEYS.map(([name, value]) => ({
      op,
      name: `Idempotency-Key ${name}`,
      mayBeValid: false,
      send: () => mine.send(op, { rawBody: JSON.stringify(ownNaturalKey(op, mine.exampleBody(op))) }).set({ 'Idempotency-Key': value }),
    }));
  }

  /** The operations a run varies: the test key's leaves out the legacy routes (the legacy key's, as in the live run). */
  function platformOps(): Op[] {
    return testMode ? ops.filter((op) => !op.path.startsWith('/legacy/')) : ops;
  }

  function report(failures: string[], variants: Variant[]) {
    expect({ sent: variants.length, failures }).toEqual({ sent: variants.length, failures: [] });
  }

  it('answers every malformed body field, dropped field, unknown field and non-object body with a 4xx problem', async () => {
    const variants = platformOps().flatMap(bodyVariants);
    report(await run(variants), variants);
    // About 2,000 requests: past jest's 30 s on a loaded two-core machine, and on the PgBouncer run.
  }, 120_000);

  it('answers every malformed, repeated or unknown query parameter with a 4xx problem (or ignores it where valid)', async () => {
    const variants = platformOps().flatMap(queryVariants);
    report(await run(variants), variants);
  });

  it('answers malformed, unknown, other-kind and other-account path ids with a 404 problem', async () => {
    const variants = platformOps().flatMap(pathVariants);
    report(await run(variants), variants);
  });

  it('answers a malformed Idempotency-Key with a 4xx problem', async () => {
    const variants = platformOps().flatMap(headerVariants);
    report(await run(variants), variants);
  });

  it('answers malformed multipart comment bodies with a 4xx problem', async () => {
    const op = ops.find((op) => op.key === 'POST /v1/jobRequests/{jobRequestId}/comments')!;
    const url = `/v1/jobRequests/${mine.realId('jobRequestId')}/comments`;
    const post = () => request(t.app.getHttpServer()).post(url).set('x-api-key', mine.account.apiKey);
    const raw = (contentType: string, body: string) => () => post().set('content-type', contentType).send(Buffer.from(body));
    const boundary = 'fuzzBoundary';
    const cases: Array<[string, () => request.Test]> = [
      ['file part under another name', () => post().attach('picture', TINY_JPEG, 'photo.jpg')],
      ['file part that is no image', () => post().attach('file', Buffer.from('not an image'), 'photo.jpg')],
      ['empty file part', () => post().attach('file', Buffer.alloc(0), 'photo.jpg')],
      ['two file parts', () => post().attach('file', TINY_JPEG, 'a.jpg').attach('file', TINY_JPEG, 'b.jpg')],
      ['file as a text field', () => post().field('file', 'x').field('message', 'hello')],
      ['unknown text field', () => post().field(UNKNOWN, 'x').attach('file', TINY_JPEG, 'photo.jpg')],
      ['message with U+0000', () => post().field('message', 'a\u0000b')],
      ['message over 64 KB', () => post().field('message', 'x'.repeat(70_000))],
      ['message repeated', () => post().field('message', 'a').field('message', 'b')],
      ['eleven text fields', () => Array.from({ length: 11 }, (_, i) => i).reduce((req, i) => req.field(`f${i}`, 'x'), post())],
      ['languageCode only', () => post().field('languageCode', 'en')],
      ['no parts at all', raw(`multipart/form-data; boundary=${boundary}`, `--${boundary}--\r\n`)],
      [
        'no boundary',
        raw('multipart/form-data', `--${boundary}\r\nContent-Disposition: form-data; name="message"\r\n\r\nhi\r\n--${boundary}--\r\n`),
      ],
      [
        'body cut short',
        raw(`multipart/form-data; boundary=${boundary}`, `--${boundary}\r\nContent-Disposition: form-data; name="message"\r\n\r\nhi`),
      ],
      ['garbage', raw(`multipart/form-data; boundary=${boundary}`, 'this is not multipart at all')],
    ];
    const variants = cases.map(([name, send]): Variant => ({ op, name: `multipart ${name}`, mayBeValid: false, send }));
    report(await run(variants), variants);
  });
});
