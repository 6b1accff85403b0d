import { Inject, Injectable } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RequestContext } from '../../platform/context/request-context';
import { DomainError } from '../../platform/errors/domain-error';
import { MCP_PATH, McpToolsService } from './mcp-tools.service';
import { unknownToolMessage, withoutMcpErrorPrefix } from './mcp.rules';

/** What an MCP answer is over HTTP: the status, the headers the transport set, and the JSON body (none for a 202). */
export interface McpHttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const INSTRUCTIONS =
  "Tools over one property-operations account (the API key's): properties and their checklists, bookings, job requests to cleaners and their chat, " +
  "the event feed and the webhooks' health. Each tool is one REST route of the Platform API (named in its description); ids are the API's. " +
  'A failed call returns the REST problem document (code, detail, errors with JSON Pointers to the arguments): correct the arguments and call again.';

/**
 * The MCP SDK (and zod, which it is built on), loaded on the first MCP request rather than at start:
 * together about 20 MB of the API's resident memory that a process serving only REST never needs.
 */
type Sdk = typeof import('@modelcontextprotocol/sdk/server/index.js') &
  typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js') &
  typeof import('@modelcontextprotocol/sdk/types.js');
let sdk: Promise<Sdk> | undefined;
function loadSdk(): Promise<Sdk> {
  sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then((parts) => Object.assign({}, ...parts) as Sdk);
  return sdk;
}

/**
 * One MCP exchange of the stateless Streamable HTTP transport: a fresh low-level SDK `Server` and a
 * `WebStandardStreamableHTTPServerTransport` per POST (no session, so any API process answers any request),
 * in JSON response mode (no SSE stream: every tool answers within its request). The low-level Server, not
 * McpServer: McpServer takes Zod schemas and validates with them, while the tools' schemas are the REST
 * document's JSON Schemas and their validation the routes' class-validator DTOs (McpToolsService).
 */
@Injectable()
export class McpExchangeService {
  constructor(
    private readonly tools: McpToolsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async exchange(ctx: RequestContext, message: unknown, protocolVersion: string | undefined): Promise<McpHttpAnswer> {
    const mcp = await loadSdk();
    const server = this.serverFor(mcp, ctx);
    const transport = new mcp.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      // The body was read and checked by the API (JSON middleware, McpMessageDto); the transport gets it parsed,
      // and a request of our making: this endpoint always answers JSON, whatever the client's Accept header says.
      const request = new Request(`${this.config.publicBaseUrl}${MCP_PATH}`, {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          ...(protocolVersion === undefined ? {} : { 'mcp-protocol-version': protocolVersion }),
        },
      });
      const response = await transport.handleRequest(request, { parsedBody: message });
      const text = await response.text();
      if (response.status >= 400) throw transportRefusal(response.status, text);
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name] = value));
      return { status: response.status, headers, body: text ? saidOnce(JSON.parse(text) as unknown) : undefined };
    } finally {
      await server.close();
    }
  }

  private serverFor(mcp: Sdk, ctx: RequestContext): Server {
    const { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = mcp;
    const server = new mcp.Server(
      { name: 'property-operations-platform', title: 'Property Operations Platform', version: this.config.version },
      { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.tools.list() }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      // An unknown tool is a protocol error (MCP's spec); a tool's own failures are tool results (isError).
      if (!this.tools.has(request.params.name)) {
        const tools = this.tools.list().map((tool) => tool.name);
        throw new McpError(ErrorCode.InvalidParams, unknownToolMessage(request.params.name, tools), { tools });
      }
      return this.tools.call(ctx, request.params.name, request.params.arguments);
    });
    return server;
  }
}

/** A JSON-RPC error answer with its message said once (withoutMcpErrorPrefix); any other answer as it is. */
function saidOnce(body: unknown): unknown {
  const error = (body as { error?: { message?: unknown } } | undefined)?.error;
  if (error && typeof error.message === 'string') error.message = withoutMcpErrorPrefix(error.message);
  return body;
}

/**
 * The transport refuses a message it cannot take (not a JSON-RPC message by the MCP schema, an unsupported
 * mcp-protocol-version header) with a JSON-RPC error; the API answers with a problem document like every route.
 */
function transportRefusal(status: number, text: string): DomainError {
  let detail = `The MCP transport refused the request (${status})`;
  try {
    const message = (JSON.parse(text) as { error?: { message?: string } }).error?.message;
    if (message) detail = message;
  } catch {
    // not JSON: keep the generic detail
  }
  return new DomainError(status === 404 ? 'not_found' : 'invalid', 'invalidMcpMessage', detail);
}
