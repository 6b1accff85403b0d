import type { ArgumentsHost } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import type { AppConfig } from '../../config/config';
import { ProblemFilter } from './problem.filter';

/** Renders `error` through the filter with a minimal Express request and response; returns the answer. */
function render(error: unknown): { status: number; body: Record<string, unknown> } {
  const answer = { status: 0, body: {} as Record<string, unknown> };
  const res = {
    headersSent: false,
    setHeader: () => res,
    status: (status: number) => ((answer.status = status), res),
    type: () => res,
    send: (text: string) => ((answer.body = JSON.parse(text) as Record<string, unknown>), res),
  };
  const req = { originalUrl: '/v1/things', method: 'POST', path: '/v1/things', headers: {}, id: 'req_test' };
  const host = { switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as unknown as ArgumentsHost;
  const filter = new ProblemFilter({ errorsBaseUrl: 'https://errors.example/problems' } as AppConfig);
  Reflect.set(filter, 'logger', { warn: () => undefined, error: () => undefined });
  filter.catch(error, host);
  return answer;
}

const foreignKeyViolation = (detail: string) =>
  new QueryFailedError('INSERT', [], Object.assign(new Error('violates foreign key constraint'), { code: '23503', detail }));

describe('ProblemFilter and foreign key violations', () => {
  it('answers a write naming a row that is gone (a race with a delete) with 409 conflict', () => {
    const { status, body } = render(foreignKeyViolation('Key (property_id)=(prop_1) is not present in table "properties".'));
    expect(status).toBe(409);
    expect(body).toMatchObject({ code: 'conflict', status: 409 });
    expect(JSON.stringify(body)).not.toContain('prop_1');
  });

  it("keeps a delete of a row still referenced (our bug, not the client's race) a bare 500", () => {
    const { status, body } = render(foreignKeyViolation('Key (id)=(prop_1) is still referenced from table "bookings".'));
    expect(status).toBe(500);
    expect(body).toMatchObject({ code: 'internal' });
    expect(JSON.stringify(body)).not.toContain('bookings');
  });
});
