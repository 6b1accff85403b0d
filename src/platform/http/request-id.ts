import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';
const CLIENT_REQUEST_ID = /^[A-Za-z0-9\-_.:+/=]{1,200}$/;

/** The client's x-request-id when it is well formed, a fresh one otherwise. */
export function chooseRequestId(clientValue: string | string[] | undefined): string {
  return typeof clientValue === 'string' && CLIENT_REQUEST_ID.test(clientValue) ? clientValue : randomUUID();
}

/**
 * Fixes the request id once, echoes it on the response; every log line and problem reuses it.
 * Called by pino-http (its genReqId) when requests are logged, and by the entry middleware
 * always, whichever comes first.
 */
export function assignRequestId(req: IncomingMessage & { id?: unknown }, res: ServerResponse): string {
  if (typeof req.id === 'string') return req.id;
  const id = chooseRequestId(req.headers[REQUEST_ID_HEADER]);
  req.id = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}
