import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RequestContext } from '../../platform/context/request-context';
import { DatabaseOutages } from '../../platform/database/database-outages';
import { requestFingerprint } from '../../platform/http/idempotency.rules';
import { buildProblem } from '../../platform/http/problem';
import { ProblemRenderer } from '../../platform/http/problem-renderer';
import { validateStrictly } from '../../platform/http/strict-validation.pipe';
import { IdempotencyStore } from '../../platform/idempotency/idempotency.store';
import { runIdempotently } from '../../platform/idempotency/idempotent-run';
import type { JsonSchema } from '../../platform/openapi/json-schema';
import { BookingsService } from '../bookings/bookings.service';
import { ChecklistsService } from '../checklists/checklists.service';
import { EventsService } from '../events/events.service';
import { CommentsService } from '../job-requests/chat/comments.service';
import { JobRequestChangesService } from '../job-requests/host/job-request-changes.service';
import { JobRequestsService } from '../job-requests/host/job-requests.service';
import { PropertiesService } from '../properties/properties.service';
import { WebhookSubscriptionsService } from '../webhooks/subscriptions/webhook-subscriptions.service';
import { componentSchemas, inputSchema, pageSchema, selfContained } from './mcp-schemas';
import { ToolSpec, toolTable } from './mcp-tools';
import {
  annotationsOf,
  effectOf,
  IDEMPOTENCY_KEY_ARGUMENT,
  refuseUnknownArguments,
  routeIds,
  splitArguments,
  ToolAnnotations,
  toolDescription,
  toolError,
  toolInstance,
  ToolResult,
  toolResult,
} from './mcp.rules';
import { RouteDocs } from '../../platform/openapi/route-docs';

/** A tool as tools/list shows it (MCP's Tool). */
export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: ToolAnnotations & { title: string };
}

/** The one MCP endpoint (a tool's error names the tool under it: toolInstance). */
export const MCP_PATH = '/v1/mcp';

const ID_SCHEMA = (name: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description: `the ${name.replace(/Id$/, '')}'s id`,
});
const IDEMPOTENCY_KEY_SCHEMA: JsonSchema = {
  type: 'string',
  pattern: '^[\\x21-\\x7e]{1,255}$',
  description: "Optional: the REST route's Idempotency-Key (see the tool's description).",
};

/**
 * The MCP tools, transport-free: what tools/list shows (descriptions from the routes' @RouteDoc, schemas
 * built once from the DTOs and read shapes the OpenAPI document uses) and how tools/call runs one: the
 * route's validation (its messages naming the tool's arguments), its service call with the caller's
 * context, a create under its Idempotency-Key, and every failure as a tool error carrying the problem
 * document the REST route would answer with, its `instance` naming the tool.
 */
@Injectable()
export class McpToolsService {
  private readonly logger = new Logger(McpToolsService.name);
  private readonly tools: Map<string, ToolSpec>;
  private readonly renderer: ProblemRenderer;
  private descriptors?: ToolDescriptor[];

  constructor(
    properties: PropertiesService,
    checklists: ChecklistsService,
    bookings: BookingsService,
    jobs: JobRequestsService,
    jobChanges: JobRequestChangesService,
    comments: CommentsService,
    events: EventsService,
    webhooks: WebhookSubscriptionsService,
    private readonly idempotency: IdempotencyStore,
    private readonly routeDocs: RouteDocs,
    databaseOutages: DatabaseOutages,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const table = toolTable({ properties, checklists, bookings, jobs, jobChanges, comments, events, webhooks });
    this.tools = new Map(table.map((spec) => [spec.name, spec]));
    this.renderer = new ProblemRenderer(databaseOutages);
  }

  list(): ToolDescriptor[] {
    this.descriptors ??= this.describe();
    return this.descriptors;
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  async call(ctx: RequestContext, name: string, args: unknown): Promise<ToolResult> {
    const spec = this.tools.get(name);
    if (!spec) throw new Error(`no tool ${name}`);
    try {
      const { ids, idempotencyKey, rest } = splitArguments(args, routeIds(spec.route), spec.idempotent === true);
      const input = spec.input ? await validateStrictly(spec.input, rest, 'arguments') : (refuseUnknownArguments(rest), {});
      if (idempotencyKey === undefined) return toolResult((await spec.run(ctx, ids, input)) as Record<string, unknown>);
      return toolResult(
        (await this.runIdempotently(ctx, spec, idempotencyKey, rest, (claimed) => spec.run(claimed, ids, input))) as Record<
          string,
          unknown
        >,
      );
    } catch (error) {
      const instance = toolInstance(MCP_PATH, name);
      const rendered = this.renderer.render(error, { method: 'POST', path: instance });
      const retryAfter = rendered.headers?.['Retry-After'];
      return toolError(
        buildProblem(this.config.errorsBaseUrl, {
          ...rendered,
          extras: { ...rendered.extras, ...(retryAfter ? { retryAfterSeconds: Number(retryAfter) } : {}) },
          instance,
          requestId: ctx.requestId,
        }),
      );
    }
  }

  /**
   * A create under its idempotencyKey: the REST route's Idempotency-Key records, fingerprinted as the REST
   * request with the same body, so one key is one request whichever way it came (docs/assistants.md).
   */
  private async runIdempotently(
    ctx: RequestContext,
    spec: ToolSpec,
    key: string,
    body: Record<string, unknown>,
    work: (ctx: RequestContext) => Promise<object>,
  ): Promise<unknown> {
    const [method, path] = spec.route.split(' ');
    const request = {
      accountId: ctx.accountId,
      key,
      fingerprint: requestFingerprint(method, path, body),
      responseStatus: 201,
      describe: () => `MCP tool ${spec.name} (request ${ctx.requestId})`,
    };
    const outcome = await runIdempotently(this.idempotency, this.logger, request, (claim) =>
      work({ ...ctx, clientRequestId: key, idempotency: claim }),
    );
    return outcome.replayed ? outcome.body : outcome.value;
  }

  private describe(): ToolDescriptor[] {
    const pages = [...this.tools.values()].flatMap((spec) => ('page' in spec.output ? [spec.output.page] : []));
    const components = componentSchemas(pages);
    return [...this.tools.values()].map((spec) => {
      const dto = spec.input ? components[spec.input.name] : undefined;
      const ids = Object.fromEntries(routeIds(spec.route).map((name) => [name, ID_SCHEMA(name)]));
      const extra = spec.idempotent ? { [IDEMPOTENCY_KEY_ARGUMENT]: IDEMPOTENCY_KEY_SCHEMA } : undefined;
      const output = 'page' in spec.output ? pageSchema(spec.output.page, components) : spec.output.schema;
      const cursor =
        'page' in spec.output ? ['cursor', 'after', 'before'].find((name) => name in ((dto?.properties as object) ?? {})) : undefined;
      return {
        name: spec.name,
        title: spec.title,
        description: toolDescription(spec.doc ?? this.routeDocs.of(spec.route), {
          route: spec.route,
          also: spec.also,
          cursor,
          idempotent: spec.idempotent === true,
        }),
        inputSchema: selfContained(inputSchema({ ids, dto, extra }), components) as ToolDescriptor['inputSchema'],
        outputSchema: selfContained(output, components) as ToolDescriptor['outputSchema'],
        annotations: { title: spec.title, ...annotationsOf(effectOf(spec.route), spec.reachesPeople) },
      };
    });
  }
}
