import { DECLARED } from '../modules/modules';

/** Example values of the read shapes (responses and webhook payloads), as the modules declare them, and of the problem documents. */
const EVENT = DECLARED.examples.Event as { eventName: string };

/**
 * One example per read shape (responses and webhook payloads). The feed's Event example carries the
 * example of its event's payload (the whole read shape).
 */
export const SHAPE_EXAMPLES: Readonly<Record<string, unknown>> = {
  ...DECLARED.examples,
  Event: { ...EVENT, results: [DECLARED.examples[DECLARED.events[EVENT.eventName].payload.name]] },
};

export const PROBLEM_EXAMPLE = (status: number, code: string, detail: string, extras: Record<string, unknown> = {}) => ({
  type: `https://errors.property-ops.example/problems/${code}`,
  title: code === 'conflict' ? 'Conflict' : code,
  status,
  detail,
  instance: '/v1/bookings',
  code,
  requestId: '7f0c2a4e-2f61-4d89-a8a4-3b1d2b9f5c11',
  ...extras,
});
