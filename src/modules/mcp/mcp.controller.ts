import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { RouteDoc } from '../../platform/openapi/route-doc';
import { BearerKeyAccepted } from '../auth/bearer-key.decorator';
import { McpMessageDto } from './dto/mcp-message.dto';
import { McpExchangeService } from './mcp-exchange.service';

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
}
