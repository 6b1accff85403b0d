import { Inject, Injectable, INestApplication } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { DEPRECATION_HEADERS, HEADERS, LIMIT_HEADERS, PARAMETERS, PROBLEM_RESPONSES, REPLAYED_HEADER, ID_HEADER } from './components';
import { dtoSchemas, JsonSchema, queryParameters } from './dto-schemas';
import type { ReadShape } from '../platform/openapi/read-shape';
import { DECLARED } from '../modules/modules';
import type { ResponseDoc, RouteDocOptions } from '../platform/openapi/route-doc';
import { SHAPE_EXAMPLES } from './examples';
import { pageName, readShapeSchemas } from './read-shapes';
import { operationIdOf, RouteFacts, routeFacts } from './route-facts';
import { eventFeedSchemas, webhooksSection } from './webhooks';

type Operation = Record<string, unknown> & { operationId: string; parameters?: JsonSchema[]; responses: Record<string, unknown> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Every authenticated route can answer these (strict query/body, key, subscription, rate limit). */
const AUTHENTICATED_PROBLEMS = [400, 401, 403, 429];
const BODY_PROBLEMS = [413, 415];
/** An @Idempotent route: its key's first request still running (409), the key reused with another request (422). */
const IDEMPOTENCY_PROBLEMS = [409, 422];

/** Each tag's description: the modules declare theirs; these two routes serve the whole house. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  ...DECLARED.tags,
  OpenApi: 'This document.',
  Mcp: 'The MCP server for AI assistants: the tools of docs/assistants.md over one JSON-RPC endpoint.',
};

/**
 * The OpenAPI 3.1 document, built once on first use: @nestjs/swagger reads the routes, path
 * parameters, body DTOs, success statuses, summaries and descriptions (@RouteDoc's ApiOperation)
 * from the controllers; the request schemas come from the DTOs' class-validator rules
 * (dto-schemas.ts); route facts the code declares (@Public, @Idempotent, @MultipartFile, the @Query
 * DTO, @RouteDoc's response, problems and example) are read from handler metadata; the read shapes
 * from the modules' `*.response.ts` (read-shapes.ts lists them); problems, headers and webhooks from
 * this folder. A route without @RouteDoc is marked `x-undocumented` (the documentation test fails on it).
 */
@Injectable()
export class OpenApiDocument {
  private app?: INestApplication;
  private document?: OpenAPIObject;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  bind(app: INestApplication): void {
    this.app = app;
  }

  get(): OpenAPIObject {
    if (!this.document) {
      if (!this.app) throw new Error('OpenApiDocument.bind(app) was not called');
      this.document = buildDocument(this.app, this.config, routeFacts(this.discovery, this.scanner));
    }
    return this.document;
  }
}

/**
 * The document of an app, read from its controllers only: works on an app created in preview mode
 * (no provider started, no database), as scripts/openapi-document.js builds it for the linters.
 */
export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  return buildDocument(app, config, routeFacts(discovery, new MetadataScanner()));
}

function buildDocument(app: INestApplication, config: AppConfig, facts: Map<string, RouteFacts>): OpenAPIObject {
  const base = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Property Operations Platform API')
    .setVersion(config.version)
    .setDescription(
      'JSON REST API for short-term-rental operations, with signed webhooks. Every route but GET /v1/health and this document needs the x-api-key header. ' +
        'Errors are RFC 9457 problem documents; lists return the collection envelope {data, nextCursor, hasMore}; authenticated responses carry X-RateLimit-* headers. ' +
        "Test mode (docs/test-mode.md): a test key (popk_test_…) acts on the account's sandbox, a separate data space; every answer to it, and every webhook delivery from the sandbox, carries X-Test-Mode: true; " +
        'operations marked x-test-mode-only answer test keys only; the legacy routes refuse test keys (403 testKeyNotAccepted).',
    )
    .addServer(config.publicBaseUrl)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The account API key (shown once when issued).' }, 'apiKey')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'The same API key as `Authorization: Bearer <key>`: the MCP endpoint only.' },
      'bearerKey',
    )
    .build();
  const document = SwaggerModule.createDocument(app, base, { operationIdFactory: operationIdOf });

  const dtoClasses = [...facts.values()].flatMap((f) => [f.query, f.body]).filter((dto): dto is new () => object => !!dto);
  const dtos = dtoSchemas(dtoClasses);
  const tags = new Set<string>();
  const routeShapes = new Set<ReadShape>();
  const pagedShapes = new Set<ReadShape>();
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      const fact = facts.get(operation.operationId) ?? { isPublic: false, idempotent: false };
      describeOperation(operation, fact, dtos);
      const response = fact.doc?.response;
      if (response && 'shape' in response) (response.page ? pagedShapes : routeShapes).add(response.shape);
      for (const tag of (operation.tags as string[] | undefined) ?? []) tags.add(tag);
    }
  }

  const webhooks = webhooksSection();
  const schemas = { ...readShapeSchemas(routeShapes, pagedShapes), ...eventFeedSchemas(), ...dtos };
  const responses = Object.fromEntries(Object.values(PROBLEM_RESPONSES).map(({ name, response }) => [name, response]));
  return {
    ...document,
    tags: [...tags].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
    webhooks: describeWebhooks(webhooks),
    components: {
      ...document.components,
      // Only what the document uses: a DTO that is a base class, a query (published as parameters) or a
      // test helper's body is no part of the API.
      schemas: usedSchemas(schemas, [document.paths, webhooks, responses]) as never,
      responses: responses as never,
      headers: HEADERS as never,
      parameters: PARAMETERS as never,
    },
  } as OpenAPIObject;
}

/** The schemas reachable by $ref from `roots`, in their declared order. */
function usedSchemas(schemas: Record<string, JsonSchema>, roots: unknown[]): Record<string, JsonSchema> {
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      const match = key === '$ref' && typeof child === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(child) : null;
      if (match && !used.has(match[1])) {
        used.add(match[1]);
        visit(schemas[match[1]]);
      } else visit(child);
    }
  };
  roots.forEach(visit);
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}

/** Webhook deliveries are signed, not authenticated by a key (security: []), and get an operationId each. */
function describeWebhooks(webhooks: Record<string, object>): Record<string, object> {
  return Object.fromEntries(
    Object.entries(webhooks).map(([eventName, item]) => {
      const post = (item as { post?: Record<string, unknown> }).post;
      if (!post) return [eventName, item];
      const operationId = `webhook_${eventName.replace(/[^A-Za-z0-9]+/g, '_')}`;
      return [eventName, { ...item, post: { operationId, security: [], ...post } }];
    }),
  );
}

function describeOperation(operation: Operation, fact: RouteFacts, dtos: Record<string, JsonSchema>): void {
  const successStatus = Object.keys(operation.responses).find((status) => status.startsWith('2')) ?? '200';
  const doc: RouteDocOptions | undefined = fact.doc;
  if (!doc) {
    operation['x-undocumented'] = true;
    return;
  }
  operation.security = fact.isPublic ? [] : fact.bearer ? [{ apiKey: [] }, { bearerKey: [] }] : [{ apiKey: [] }];
  const legacy = operation.operationId.startsWith('LegacyController_');
  if (legacy) operation.deprecated = true;
  if (doc.testModeOnly) {
    operation['x-test-mode-only'] = true;
    operation.description =
      `Test mode only: answers a test key (popk_test_…, on its sandbox) in every environment; a live key gets 404 unless ` +
      `TEST_HELPERS_ENABLED=true (never in production). ${operation.description ?? ''}`.trim();
  }

  const example = doc.example ?? {};
  const pathNames = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name as string);
  // A path id's example is the declared example id of its name unless the route names another.
  const exampleIds: Record<string, string> = { ...DECLARED.exampleIds, ...example.params };
  const parameters = (operation.parameters ?? []).map((p) =>
    p.in === 'path' && exampleIds[p.name as string] ? { ...p, example: exampleIds[p.name as string] } : p,
  );
  if (fact.query && dtos[fact.query.name]) {
    for (const q of queryParameters(dtos[fact.query.name])) {
      const value = example.query?.[q.name as string];
      parameters.push(value === undefined ? q : { ...q, example: value });
    }
  }
  parameters.push({ $ref: '#/components/parameters/RequestId' });
  if (fact.idempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  operation.parameters = parameters;

  if (fact.body) operation.requestBody = requestBody(fact, dtos, example.body);
  const headers = {
    ...(fact.isPublic ? ID_HEADER : LIMIT_HEADERS),
    ...(fact.idempotent ? REPLAYED_HEADER : {}),
    ...(legacy ? DEPRECATION_HEADERS : {}),
  };
  // A route that only refuses has its problem as its one answer (and no success to promise).
  const responses: Record<string, unknown> = 'refused' in doc.response ? {} : { [successStatus]: successResponse(doc.response, headers) };
  const problems = new Set([
    ...('refused' in doc.response ? [doc.response.refused] : []),
    ...(fact.isPublic ? [] : AUTHENTICATED_PROBLEMS),
    ...(fact.body ? BODY_PROBLEMS : []),
    ...(fact.idempotent ? IDEMPOTENCY_PROBLEMS : []),
    // A route that names a resource by id answers 404 for an unknown id or another account's.
    ...(pathNames.length > 0 ? [404] : []),
    ...(doc.problems ?? []),
  ]);
  for (const status of [...problems].sort()) {
    responses[String(status)] = { $ref: `#/components/responses/${PROBLEM_RESPONSES[status].name}` };
  }
  operation.responses = responses;
}

function requestBody(fact: RouteFacts, dtos: Record<string, JsonSchema>, example: unknown): object {
  const name = fact.body!.name;
  const schema = dtos[name] ?? { type: 'object' };
  const content: Record<string, unknown> = {};
  if (fact.multipartFile) {
    const field = fact.multipartFile;
    const properties = { ...(schema.properties as object) } as Record<string, JsonSchema>;
    delete properties[field];
    // The file or one of fileOr: a JSON body has no file, so it needs one of those (not null).
    const texts = fact.doc?.fileOr ?? [];
    const jsonProperties = { ...properties };
    for (const name of texts) jsonProperties[name] = notNull(jsonProperties[name]);
    content['application/json'] = {
      schema: { ...schema, properties: jsonProperties, ...oneOfRequired(texts, (schema.required as string[] | undefined) ?? []) },
      ...(example === undefined ? {} : { example }),
    };
    content['multipart/form-data'] = {
      schema: {
        ...schema,
        properties: {
          ...properties,
          [field]: {
            type: 'string',
            format: 'binary',
            contentMediaType: 'image/*',
            description: 'the image (JPEG, PNG, GIF or WebP, checked by its bytes)',
          },
        },
        ...(texts.length ? { anyOf: [...texts, field].map((name) => ({ required: [name] })) } : {}),
      },
      encoding: { [field]: { contentType: 'image/jpeg, image/png, image/gif, image/webp' } },
    };
  } else {
    content['application/json'] = { schema: { $ref: `#/components/schemas/${name}` }, ...(example === undefined ? {} : { example }) };
  }
  return { required: true, content };
}

/** The schema keywords for "at least one of these fields". */
function oneOfRequired(names: string[], required: string[]): JsonSchema {
  if (names.length === 0) return {};
  if (names.length === 1) return { required: [...required, names[0]] };
  return { anyOf: names.map((name) => ({ required: [name] })) };
}

function notNull(schema: JsonSchema | undefined): JsonSchema {
  if (!schema || !Array.isArray(schema.type)) return schema ?? {};
  const types = (schema.type as string[]).filter((type) => type !== 'null');
  return { ...schema, type: types.length === 1 ? types[0] : types };
}

function successResponse(response: ResponseDoc, headers: object): object {
  if ('refused' in response) throw new Error('a route that only refuses has no success response');
  if ('none' in response) return { description: response.description, headers };
  if ('binary' in response)
    return {
      description: response.description,
      headers,
      content: { [response.binary]: { schema: { type: 'string', contentMediaType: response.binary } } },
    };
  if ('json' in response)
    return { description: response.description, headers, content: { 'application/json': { schema: { type: 'object' } } } };
  const example = SHAPE_EXAMPLES[response.shape.name];
  if (response.page) {
    return {
      description: response.description,
      headers,
      content: {
        'application/json': {
          schema: { $ref: `#/components/schemas/${pageName(response.shape)}` },
          ...(example ? { example: { data: [example], nextCursor: null, hasMore: false } } : {}),
        },
      },
    };
  }
  return {
    description: response.description,
    headers,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${response.shape.name}` }, ...(example ? { example } : {}) } },
  };
}
