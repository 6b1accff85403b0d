import leven from 'leven';
import { FieldIssue, ValidationError } from '../../platform/errors/domain-error';
import { isValidIdempotencyKey } from '../../platform/http/idempotency.rules';
import type { Problem } from '../../platform/http/problem';
import { jsonPointer, toValidationError } from '../../platform/http/validation-issues';

/** What a tool may change: the MCP annotations follow from it. */
export type ToolEffect = 'read' | 'create' | 'change' | 'cancel';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * MCP's hints, from what the tool does: reads change nothing; a create adds (a retry without an
 * idempotencyKey adds again); a change overwrites; a cancel ends something and a second one changes nothing
 * more. `reachesPeople`: the call notifies someone outside the account (a cleaner), MCP's "open world".
 */
export function annotationsOf(effect: ToolEffect, reachesPeople = false): ToolAnnotations {
  return {
    readOnlyHint: effect === 'read',
    destructiveHint: effect === 'change' || effect === 'cancel',
    idempotentHint: effect === 'read' || effect === 'cancel',
    openWorldHint: reachesPeople,
  };
}

/** The path ids a route (`GET /v1/bookings/{bookingId}`) names, in order: a tool takes each as a string argument. */
export function routeIds(route: string): string[] {
  return [...route.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
}

/** What a tool may change, from its route's method: GET reads, PATCH changes, a POST to …/cancel cancels, another POST creates. */
export function effectOf(route: string): ToolEffect {
  const [method, path] = route.split(' ');
  if (method === 'GET') return 'read';
  if (method === 'PATCH') return 'change';
  if (method === 'POST') return path.endsWith('/cancel') ? 'cancel' : 'create';
  throw new Error(`no tool effect for ${route}`);
}

export const IDEMPOTENCY_KEY_ARGUMENT = 'idempotencyKey';

export interface SplitArguments {
  /** The path ids of the route (`bookingId`), by name. */
  ids: Record<string, string>;
  idempotencyKey?: string;
  /** Everything else: the route's query or body, for its DTO's validation. */
  rest: Record<string, unknown>;
}

const MAX_ID_LENGTH = 200;

/**
 * A tool call's arguments, taken apart as the REST route's request is: the path ids (non-empty strings), the
 * Idempotency-Key (the header's rules) and the rest, which the route's DTO validates. Pointers name the argument.
 */
export function splitArguments(args: unknown, idNames: readonly string[], takesIdempotencyKey: boolean): SplitArguments {
  if (args === undefined) args = {};
  if (args === null || typeof args !== 'object' || Array.isArray(args)) throw ValidationError.field('#', 'The arguments must be an object');
  const rest = { ...(args as Record<string, unknown>) };
  const issues: FieldIssue[] = [];
  const ids: Record<string, string> = {};
  for (const name of idNames) {
    const value = rest[name];
    delete rest[name];
    if (value === undefined) issues.push({ pointer: jsonPointer([name]), detail: `"${name}": is required` });
    else if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH)
      issues.push({ pointer: jsonPointer([name]), detail: `"${name}": must be a string of 1-${MAX_ID_LENGTH} characters` });
    else ids[name] = value;
  }
  if (issues.length > 0) throw new ValidationError(`Invalid arguments: ${issues.map((i) => i.detail).join('; ')}`, issues);

  let idempotencyKey: string | undefined;
  if (takesIdempotencyKey && rest[IDEMPOTENCY_KEY_ARGUMENT] !== undefined) {
    const key = rest[IDEMPOTENCY_KEY_ARGUMENT];
    delete rest[IDEMPOTENCY_KEY_ARGUMENT];
    if (typeof key !== 'string' || !isValidIdempotencyKey(key)) {
      const detail = `"${IDEMPOTENCY_KEY_ARGUMENT}": must be 1-255 visible ASCII characters`;
      throw new ValidationError(detail, [{ pointer: jsonPointer([IDEMPOTENCY_KEY_ARGUMENT]), detail }], 'invalidIdempotencyKey');
    }
    idempotencyKey = key;
  }
  return { ids, idempotencyKey, rest };
}

/** A tool that takes no more than its ids refuses any other argument, as a route without a body or query does. */
export function refuseUnknownArguments(rest: Record<string, unknown>): void {
  const names = Object.keys(rest);
  if (names.length > 0)
    throw toValidationError(
      [],
      'arguments',
      names.map((name) => [name]),
    );
}

/** Where a tool's failure happened, as its problem's `instance`: the tool, under the one MCP endpoint. */
export function toolInstance(endpoint: string, toolName: string): string {
  return `${endpoint}/tools/${toolName}`;
}

/** What a tool's description adds to its route's documentation: each part MCP-specific, said in one place. */
export interface ToolExtras {
  route: string;
  /** What the tool does beyond the route (ToolSpec.also). */
  also?: string;
  /** The list query's cursor parameter (`cursor`, `after`): the tool pages with the answer's nextCursor. */
  cursor?: string;
  /** It takes idempotencyKey (a create with the route's Idempotency-Key). */
  idempotent: boolean;
}

/**
 * A tool's description: its route's @RouteDoc summary and description (the REST reference's words), then
 * what only the tool needs said: what it adds, how it pages, its idempotencyKey, and the route it is.
 */
export function toolDescription(doc: { summary: string; description?: string }, extras: ToolExtras): string {
  const summary = /[.!?]$/.test(doc.summary) ? doc.summary : `${doc.summary}.`;
  return [
    summary,
    doc.description,
    extras.also,
    extras.cursor ? `Paged: pass the answer's nextCursor as ${extras.cursor} while hasMore.` : undefined,
    extras.idempotent
      ? 'Pass an idempotencyKey to make a retry safe: the same key and arguments within 24 hours return the first answer instead of creating again (the REST route shares its Idempotency-Key records).'
      : undefined,
    `(REST: ${extras.route})`,
  ]
    .filter((part): part is string => !!part)
    .join(' ');
}

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The read shape as structuredContent, and as JSON text for clients that read only content. */
export function toolResult(value: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * A problem as a tool error: the REST route's problem document (code, detail, errors, …) as the text, so the
 * assistant reads what went wrong and may correct its call; never a transport or JSON-RPC failure.
 */
export function toolError(problem: Problem): ToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }] };
}

/**
 * What an unknown tool's protocol error says: the tool closest to the name asked for (a typo: at most a third of
 * its letters off), and every tool, so the assistant can call again without a tools/list.
 */
export function unknownToolMessage(name: string, tools: readonly string[]): string {
  const [closest] = tools
    .map((tool) => ({ tool, distance: leven(name, tool) }))
    .filter(({ distance }) => distance <= Math.max(1, Math.floor(name.length / 3)))
    .sort((a, b) => a.distance - b.distance);
  return `Unknown tool: ${name}.${closest ? ` Did you mean ${closest.tool}?` : ''} The tools: ${tools.join(', ')}`;
}

/**
 * A JSON-RPC error message as said once: the SDK's McpError writes "MCP error <code>: " into its message, which
 * the server sends and a client's McpError prefixes again ("MCP error -32602: MCP error -32602: …").
 */
export function withoutMcpErrorPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, '');
}
