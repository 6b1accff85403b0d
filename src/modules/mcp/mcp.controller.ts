import { Body, Controller, Delete, Get, HttpCode, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RequestContext } from '../../platform/context/request-context';
import { DomainError } from '../../platform/errors/domain-error';
import { Public } from '../../platform/http/public.decorator';
import { Ctx } from '../../platform/http/request-context';
import { refused, RouteDoc } from '../../platform/openapi/route-doc';
import { BearerKeyAccepted } from '../auth/bearer-key.decorator';
import { McpMessageDto } from './dto/mcp-message.dto';
import { McpExchangeService } from './mcp-exchange.service';
import { MCP_PATH } from './mcp-tools.service';

/**
 * What MCP's Streamable HTTP transport does with GET (open a server-to-client stream) and DELETE (end a
 * session) this endpoint does not serve: it is stateless. 405 with `Allow: POST`, which the SDK's client
 * reads as "no stream".
 */
function notServed(method: 'GET' | 'DELETE', why: string): DomainError {
  return new DomainError(
    'method_not_allowed',
    'methodNotAllowed',
    `${method} ${MCP_PATH} is not served: ${why}; POST each message`,
    {},
    {
      Allow: 'POST',
    },
  );
}

@Controller('v1/mcp')
export class McpController {
  constructor(private readonly mcp: McpExchangeService) {}

  @RouteDoc({
    summary: 'MCP server for AI assistants (Streamable HTTP, stateless)',
    description:
      "One JSON-RPC 2.0 message of the Model Context Protocol per request (initialize, tools/list, tools/call, …), answered as JSON (202 with no body for a notification). The key also goes as `Authorization: Bearer <key>`; each request counts against the key's rate limit. Tools, their input and output schemas and how to connect an assistant: docs/assistants.md. GET and DELETE answer 405 (no stream, no sessions).",
    response: {
      json: true,
      description: 'The JSON-RPC response: the result, or a JSON-RPC error for a protocol error (a tool failure is a result with isError).',
    },
    example: { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
  })
  @BearerKeyAccepted()
  @Post()
  @HttpCode(200)
  async post(@Ctx() ctx: RequestContext, @Body() _checked: McpMessageDto, @Res() res: Response): Promise<void> {
    // The SDK reads the body as sent (the DTO has checked it; its instance is class-transformer's copy).
    const version = res.req.headers['mcp-protocol-version'];
    const answer = await this.mcp.exchange(ctx, res.req.body, typeof version === 'string' ? version : undefined);
    // The status is the transport's (200, or 202 for a notification), so the answer is sent here, not by Nest.
    for (const [name, value] of Object.entries(answer.headers)) if (name !== 'content-length') res.setHeader(name, value);
    if (answer.body === undefined) res.status(answer.status).end();
    else res.status(answer.status).json(answer.body);
  }

  @RouteDoc({
    summary: 'No server-to-client stream: always 405',
    description:
      'In MCP\'s Streamable HTTP transport a client may GET the endpoint to open a stream of server-to-client messages. This endpoint is stateless (each answer comes back on its own POST), so GET answers 405 with Allow: POST, which MCP clients take as "no stream"; no key is needed for it.',
    response: refused(405, 'GET is not served: POST each message.'),
  })
  @Public()
  @Get()
  noStream(): never {
    throw notServed('GET', 'the MCP endpoint is stateless (no server-to-client stream)');
  }

  @RouteDoc({
    summary: 'No session to end: always 405',
    description:
      "In MCP's Streamable HTTP transport a client may DELETE the endpoint to end its session. This endpoint issues no sessions (no Mcp-Session-Id), so DELETE answers 405 with Allow: POST; no key is needed for it.",
    response: refused(405, 'DELETE is not served: there are no sessions to end.'),
  })
  @Public()
  @Delete()
  endSession(): never {
    throw notServed('DELETE', 'the MCP endpoint is stateless (no sessions)');
  }
}
