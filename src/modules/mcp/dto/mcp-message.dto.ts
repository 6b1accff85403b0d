import { IsIn, IsObject, IsString, Length } from 'class-validator';
import { IsJsonRpcId, OptionalNotNull } from '../../../platform/http/validators';

/**
 * POST /v1/mcp: one JSON-RPC 2.0 message from an MCP client, a request (with id) or a notification (without).
 * Checked like every body (strict, problem documents) before the MCP SDK reads it. No batches (a JSON array:
 * MCP dropped them in 2025-06-18) and no responses (the server never asks the client anything).
 */
export class McpMessageDto {
  @IsIn(['2.0'], { message: 'jsonrpc must be "2.0"' })
  jsonrpc!: '2.0';

  /** Absent for a notification. */
  @OptionalNotNull()
  @IsJsonRpcId()
  id?: string | number;

  /** initialize, tools/list, tools/call, ping, notifications/initialized, … */
  @IsString()
  @Length(1, 100)
  method!: string;

  @OptionalNotNull()
  @IsObject()
  params?: Record<string, unknown>;
}
