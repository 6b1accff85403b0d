import { type ArgumentsHost, Logger } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';
import { QueryFailedError } from 'typeorm';
import type { AppConfig } from '../../config/config';
import type { DatabaseOutages } from '../database/database-outages';
import { isDatabaseUnavailable } from '../database/pg-errors';
import { ProblemFilter } from './problem.filter';
import { RouteMethods } from './route-methods';

/** The outages the filter reported (the real DatabaseOutages logs and probes; its tracker has tests of its own). */
const notedOutages: unknown[] = [];
const outages = {
  noted: (error: unknown) => isDatabaseUnavailable(error) && notedOutages.push(error) > 0,
} as unknown as DatabaseOutages;

// The filter and the renderer behind it log what they answer; the answers are what is tested here.
beforeAll(() => {
  jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
});

/** No routes: these errors are none of routing's. */
const noRoutes = new RouteMethods({ getControllers: () => [] } as unknown as DiscoveryService);

/** Renders `error` through the filter with a minimal Express request and response; returns the answer. */
function render(error: unknown): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  const answer = { status: 0, body: {} as Record<string, unknown>, headers: {} as Record<string, string> };
  const res = {
    headersSent: false,
    setHeader: (name: string, value: string) => ((answer.headers[name] = value), res),
    status: (status: number) => ((answer.status = status), res),
    type: () => res,
    send: (text: string) => ((answer.body = JSON.parse(text) as Record<string, unknown>), res),
  };
  const req = { originalUrl: '/v1/things', method: 'POST', path: '/v1/things', headers: {}, id: 'req_test' };
  const host = { switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as unknown as ArgumentsHost;
  const filter = new ProblemFilter({ errorsBaseUrl: 'https://errors.example/problems' } as AppConfig, outages, noRoutes);
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

describe('ProblemFilter and database outages', () => {
  const driverError = (code: string, message: string) => Object.assign(new Error(message), { code });

  it.each([
    ['a refused connection', driverError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    [
      'a server shutting down',
      new QueryFailedError('SELECT', [], driverError('57P01', 'terminating connection due to administrator command')),
    ],
    ['a pool that cannot connect in time', new Error('timeout exceeded when trying to connect')],
  ])('answers %s with 503 serviceUnavailable and Retry-After, and reports the outage', (_, error) => {
    notedOutages.length = 0;
    const { status, body, headers } = render(error);
    expect(status).toBe(503);
    expect(body).toMatchObject({ code: 'serviceUnavailable', status: 503, title: 'Service unavailable' });
    expect(headers['Retry-After']).toBe('5');
    expect(JSON.stringify(body)).not.toMatch(/5432|administrator|pool/);
    expect(notedOutages).toEqual([error]);
  });

  it('keeps other errors out of the outage', () => {
    notedOutages.length = 0;
    expect(render(new Error('boom')).status).toBe(500);
    expect(notedOutages).toEqual([]);
  });
});

describe('ProblemFilter and transaction conflicts', () => {
  it.each(['40P01', '40001'])('answers a transaction rolled back for a conflict (%s) with a retryable 503, not a 500', (code) => {
    notedOutages.length = 0;
    const error = new QueryFailedError('UPDATE', [], Object.assign(new Error('deadlock detected'), { code, detail: 'Process 7 waits' }));
    const { status, body, headers } = render(error);
    expect(status).toBe(503);
    expect(body).toMatchObject({ code: 'serviceUnavailable', status: 503, title: 'Service unavailable' });
    expect(headers['Retry-After']).toBe('1');
    expect(JSON.stringify(body)).not.toMatch(/deadlock|Process/);
    // Not an outage: the server answered.
    expect(notedOutages).toEqual([]);
  });
});
