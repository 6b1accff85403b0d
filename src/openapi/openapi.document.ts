import { Inject, Injectable, INestApplication } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { DEPRECATION_HEADERS, HEADERS, LIMIT_HEADERS, PARAMETERS, PROBLEM_RESPONSES, REPLAYED_HEADER, ID_HEADER } from './components';
import { dtoSchemas, JsonSchema, queryParameters } from './dto-schemas';
import { SHAPE_EXAMPLES } from './examples';
import { OperationDoc, OPERATIONS, ResponseDoc } from './operations';
import { READ_SHAPES } from './read-shapes';
import { operationIdOf, RouteFacts, routeFacts } from './route-facts';
import { eventFeedSchemas, webhooksSection } from './webhooks';

type Operation = Record<string, unknown> & { operationId: string; parameters?: JsonSchema[]; responses: Record<string, unknown> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Every authenticated route can answer these (strict query/body, key, subscription, rate limit). */
const AUTHENTICATED_PROBLEMS = [400, 401, 403, 429];
const BODY_PROBLEMS = [413, 415];

const TAG_DESCRIPTIONS: Record<string, string> = {
  Health: 'Liveness of the service and its dependencies.',
  OpenApi: 'This document.',
  Properties: 'The root resource: create it first.',
  PropertyPictures: 'Pictures: the service downloads the image and serves its own copy.',
  Checklists: 'Checklists of tasks, with server-minted task ids.',
  Bookings: 'Bookings; creating one triggers the scheduling automation.',
  Reminders: "Reminders, and the bookings' automatic turnover reminders.",
  JobRequests: 'Jobs offered to service providers, their chat and payment status.',
  Comments: "A job's chat.",
  Webhooks: 'Signed webhook subscriptions, test deliveries and the delivery log.',
  Events: 'The event feed: the backfill source for webhooks.',
  Legacy: 'The deprecated legacy batched API and its unsigned webhook: legacy keys only, shut down at the sunset (docs/legacy.md).',
};

/**
 * The OpenAPI 3.1 document, built once on first use: @nestjs/swagger reads the routes, path
 * parameters, body DTOs and success statuses from the controllers; the request schemas come from the
 * DTOs' class-validator rules (dto-schemas.ts); route facts the code declares (@Public, @Idempotent,
 * @MultipartFile, the @Query DTO) are read from handler metadata; the rest (read shapes, problems,
 * headers, examples, webhooks) from this folder. A route without an entry in operations.ts is
 * marked `x-undocumented` (the documentation test fails on it).
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

function buildDocument(app: INestApplication, config: AppConfig, facts: Map<string, RouteFacts>): OpenAPIObject {
  const base = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Property Operations Platform API')
    .setVersion(config.version)
    .setDescription(
      'JSON REST API for short-term-rental operations, with signed webhooks. Every route but GET /v1/health and this document needs the x-api-key header. ' +
        'Errors are RFC 9457 problem documents; lists return the collection envelope {data, nextCursor, hasMore}; authenticated responses carry X-RateLimit-* headers.',
    )
    .addServer(config.publicBaseUrl)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The account API key (shown once when issued).' }, 'apiKey')
    .build();
  const document = SwaggerModule.createDocument(app, base, { operationIdFactory: operationIdOf });

  const dtoClasses = [...facts.values()].flatMap((f) => [f.query, f.body]).filter((dto): dto is new () => object => !!dto);
  const dtos = dtoSchemas(dtoClasses);
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      const key = `${method.toUpperCase()} ${path}`;
      const fact = facts.get(operation.operationId) ?? { isPublic: false, idempotent: false };
      describeOperation(operation, OPERATIONS[key], fact, dtos);
      for (const tag of (operation.tags as string[] | undefined) ?? []) tags.add(tag);
    }
  }

  return {
    ...document,
    tags: [...tags].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
    webhooks: webhooksSection(),
    components: {
      ...document.components,
      schemas: { ...READ_SHAPES, ...eventFeedSchemas(), ...dtos } as never,
      responses: Object.fromEntries(Object.values(PROBLEM_RESPONSES).map(({ name, response }) => [name, response])) as never,
      headers: HEADERS as never,
      parameters: PARAMETERS as never,
    },
  } as OpenAPIObject;
}

function describeOperation(operation: Operation, doc: OperationDoc | undefined, fact: RouteFacts, dtos: Record<string, JsonSchema>): void {
  const successStatus = Object.keys(operation.responses).find((status) => status.startsWith('2')) ?? '200';
  if (!doc) {
    operation['x-undocumented'] = true;
    return;
  }
  operation.summary = doc.summary;
  if (doc.description) operation.description = doc.description;
  operation.security = fact.isPublic ? [] : [{ apiKey: [] }];
  const legacy = operation.operationId.startsWith('LegacyController_');
  if (legacy) operation.deprecated = true;

  const example = doc.example ?? {};
  const parameters = (operation.parameters ?? []).map((p) =>
    p.in === 'path' && example.params?.[p.name as string] ? { ...p, example: example.params[p.name as string] } : p,
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
  const responses: Record<string, unknown> = { [successStatus]: successResponse(doc.response, headers) };
  const problems = new Set([
    ...(fact.isPublic ? [] : AUTHENTICATED_PROBLEMS),
    ...(fact.body ? BODY_PROBLEMS : []),
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
    content['application/json'] = { schema: { ...schema, properties }, ...(example === undefined ? {} : { example }) };
    content['multipart/form-data'] = {
      schema: {
        ...schema,
        properties: {
          ...properties,
          [field]: { type: 'string', contentMediaType: 'image/*', description: 'the image (JPEG, PNG, GIF or WebP, checked by its bytes)' },
        },
      },
      encoding: { [field]: { contentType: 'image/jpeg, image/png, image/gif, image/webp' } },
    };
  } else {
    content['application/json'] = { schema: { $ref: `#/components/schemas/${name}` }, ...(example === undefined ? {} : { example }) };
  }
  return { required: true, content };
}

function successResponse(response: ResponseDoc, headers: object): object {
  if ('none' in response) return { description: response.description, headers };
  if ('binary' in response)
    return {
      description: response.description,
      headers,
      content: { [response.binary]: { schema: { type: 'string', contentMediaType: response.binary } } },
    };
  if ('json' in response)
    return { description: response.description, headers, content: { 'application/json': { schema: { type: 'object' } } } };
  const example = SHAPE_EXAMPLES[response.schema];
  if (response.page) {
    return {
      description: response.description,
      headers,
      content: {
        'application/json': {
          schema: { $ref: `#/components/schemas/${response.schema}Page` },
          ...(example ? { example: { data: [example], nextCursor: null, hasMore: false } } : {}),
        },
      },
    };
  }
  return {
    description: response.description,
    headers,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${response.schema}` }, ...(example ? { example } : {}) } },
  };
}
