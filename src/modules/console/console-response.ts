import type { Response } from 'express';
import { ApiAccessPausedError } from './console.errors';
import type { ConsoleCaller } from './console-session.guard';
import { Html } from './views/html';

export function sendPage(res: Response, status: number, page: Html): void {
  res.status(status).type('html').send(page.value);
}

/** Webhooks and events follow the API's rule (spec 5.3): not while the account's API access is paused. */
export function requireApiAccess(caller: ConsoleCaller, what: string): void {
  if (!caller.frame.apiAccess) throw new ApiAccessPausedError(what);
}
