import { ValidationError } from '../../platform/errors/domain-error';
import { annotationsOf, effectOf, inputPlace, routeIds, splitArguments, toolError, toolResult } from './mcp.rules';

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

  it("reads a tool's id arguments, input place and effect from its route", () => {
    expect(routeIds('GET /v1/bookings')).toEqual([]);
    expect(routeIds('GET /v1/jobRequests/{jobRequestId}/comments/{commentId}')).toEqual(['jobRequestId', 'commentId']);
    expect([inputPlace('GET /v1/bookings'), inputPlace('POST /v1/bookings'), inputPlace('PATCH /v1/bookings/{bookingId}/dates')]).toEqual([
      'query',
      'body',
      'body',
    ]);
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
      errors: [{ pointer: '#/bookingId', detail: 'bookingId is required' }],
    });
    expect(refusal(() => splitArguments({ bookingId: 7 }, ['bookingId'], false)).errors[0].pointer).toBe('#/bookingId');
    expect(refusal(() => splitArguments({ idempotencyKey: 'with space' }, [], true))).toMatchObject({
      code: 'invalidIdempotencyKey',
      errors: [{ pointer: '#/idempotencyKey' }],
    });
    expect(refusal(() => splitArguments([], [], false)).code).toBe('validationFailed');
  });

  it('answers a value as structuredContent and text, a problem as a tool error', () => {
    expect(toolResult({ a: 1 })).toEqual({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
    const problem = { type: 't', title: 'Not Found', status: 404, detail: 'd', instance: '/v1/mcp', code: 'notFound', requestId: 'r' };
    expect(toolError(problem)).toEqual({ isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }] });
  });
});
