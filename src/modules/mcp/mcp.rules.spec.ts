import { ValidationError } from '../../platform/errors/domain-error';
import {
  annotationsOf,
  effectOf,
  refuseUnknownArguments,
  routeIds,
  splitArguments,
  toolDescription,
  toolError,
  toolInstance,
  toolResult,
  unknownToolMessage,
  withoutMcpErrorPrefix,
} from './mcp.rules';

describe('MCP rules', () => {
  it('derives the annotations from what a tool may change', () => {
    expect(annotationsOf('read')).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(annotationsOf('create', true)).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(annotationsOf('change')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(annotationsOf('cancel')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  });

  it("reads a tool's id arguments and effect from its route", () => {
    expect(routeIds('GET /v1/bookings')).toEqual([]);
    expect(routeIds('GET /v1/jobRequests/{jobRequestId}/comments/{commentId}')).toEqual(['jobRequestId', 'commentId']);
    expect(effectOf('GET /v1/webhooks')).toBe('read');
    expect(effectOf('POST /v1/jobRequests/{jobRequestId}/comments')).toBe('create');
    expect(effectOf('PATCH /v1/bookings/{bookingId}/dates')).toBe('change');
    expect(effectOf('POST /v1/bookings/{bookingId}/cancel')).toBe('cancel');
    expect(() => effectOf('DELETE /v1/bookings/{bookingId}')).toThrow('no tool effect for DELETE /v1/bookings/{bookingId}');
  });

  it('takes the path ids and the idempotency key out of the arguments, leaving the rest to the DTO', () => {
    expect(splitArguments({ bookingId: 'bk_1', startDate: 'x' }, ['bookingId'], false)).toEqual({
      ids: { bookingId: 'bk_1' },
      idempotencyKey: undefined,
      rest: { startDate: 'x' },
    });
    expect(splitArguments({ idempotencyKey: 'k-1', name: 'A' }, [], true)).toEqual({ ids: {}, idempotencyKey: 'k-1', rest: { name: 'A' } });
    // A tool without idempotency leaves the argument to the DTO, which refuses it as unknown.
    expect(splitArguments({ idempotencyKey: 'k-1' }, [], false).rest).toEqual({ idempotencyKey: 'k-1' });
    expect(splitArguments(undefined, [], false)).toEqual({ ids: {}, idempotencyKey: undefined, rest: {} });
  });

  it('refuses a missing or malformed id and a malformed key with a pointer to the argument', () => {
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return { code: (error as ValidationError).code, errors: (error as ValidationError).extras.errors as any };
      }
      throw new Error('not refused');
    };
    expect(refusal(() => splitArguments({}, ['bookingId'], false))).toEqual({
      code: 'validationFailed',
      errors: [{ pointer: '#/bookingId', detail: '"bookingId": is required' }],
    });
    expect(refusal(() => splitArguments({ bookingId: 7 }, ['bookingId'], false)).errors[0].pointer).toBe('#/bookingId');
    expect(refusal(() => splitArguments({ idempotencyKey: 'with space' }, [], true))).toMatchObject({
      code: 'invalidIdempotencyKey',
      errors: [{ pointer: '#/idempotencyKey' }],
    });
    expect(refusal(() => splitArguments([], [], false)).code).toBe('validationFailed');
    expect(refusal(() => refuseUnknownArguments({ verbose: true }))).toEqual({
      code: 'objectStrict',
      errors: [{ pointer: '#/verbose', detail: 'Unknown argument "verbose" is not allowed' }],
    });
  });

  it("describes a tool with its route's documentation, then only what the tool adds, and names the tool in its errors", () => {
    const doc = { summary: 'List bookings overlapping a window', description: 'By startDate.' };
    expect(toolDescription(doc, { route: 'GET /v1/bookings', cursor: 'cursor', idempotent: false })).toBe(
      "List bookings overlapping a window. By startDate. Paged: pass the answer's nextCursor as cursor while hasMore. (REST: GET /v1/bookings)",
    );
    const create = toolDescription({ summary: 'Create a booking' }, { route: 'POST /v1/bookings', also: 'Also this.', idempotent: true });
    expect(create).toMatch(/^Create a booking\. Also this\. Pass an idempotencyKey to make a retry safe: .*\(REST: POST \/v1\/bookings\)$/);
    expect(toolDescription({ summary: 'Ends with a dot.' }, { route: 'GET /x', idempotent: false })).toBe(
      'Ends with a dot. (REST: GET /x)',
    );
    expect(toolInstance('/v1/mcp', 'list_bookings')).toBe('/v1/mcp/tools/list_bookings');
  });

  it('answers a value as structuredContent and text, a problem as a tool error', () => {
    expect(toolResult({ a: 1 })).toEqual({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
    const problem = { type: 't', title: 'Not Found', status: 404, detail: 'd', instance: '/v1/mcp', code: 'notFound', requestId: 'r' };
    expect(toolError(problem)).toEqual({ isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }] });
  });
});

describe('unknownToolMessage', () => {
  const tools = ['find_properties', 'create_property', 'create_booking', 'list_recent_events'];

  it('names the closest tool to a typo, then every tool', () => {
    expect(unknownToolMessage('create_propery', tools)).toBe(
      'Unknown tool: create_propery. Did you mean create_property? The tools: find_properties, create_property, create_booking, list_recent_events',
    );
    expect(unknownToolMessage('list_recent_event', tools)).toContain('Did you mean list_recent_events?');
  });

  it('suggests nothing for a name far from every tool', () => {
    expect(unknownToolMessage('drop_database', tools)).toBe(`Unknown tool: drop_database. The tools: ${tools.join(', ')}`);
  });
});

describe('withoutMcpErrorPrefix', () => {
  it("takes off the SDK's McpError prefix, which a client adds again", () => {
    expect(withoutMcpErrorPrefix('MCP error -32602: Unknown tool: x')).toBe('Unknown tool: x');
    expect(withoutMcpErrorPrefix('Method not found')).toBe('Method not found');
  });
});
