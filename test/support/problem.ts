import type { Response } from 'supertest';
import { loadConfig } from '../../src/config/config';

/**
 * Asserts that a response is a problem document (spec 7): problem+json, every
 * member present, type under ERRORS_BASE_URL, instance = path, requestId = x-request-id.
 */
export function expectProblem(res: Response, status: number, code: string, instance?: string): Record<string, any> {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.body as Record<string, any>;
  expect(body).toEqual(
    expect.objectContaining({
      type: `${loadConfig(process.env).errorsBaseUrl}/${code}`,
      title: expect.any(String),
      status,
      detail: expect.any(String),
      instance: expect.any(String),
      code,
      requestId: res.headers['x-request-id'],
    }),
  );
  expect(body.title.length).toBeGreaterThan(0);
  expect(body.detail.length).toBeGreaterThan(0);
  expect(body.requestId).toBeTruthy();
  if (instance !== undefined) expect(body.instance).toBe(instance);
  return body;
}
