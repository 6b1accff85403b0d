import type { Response } from 'express';
import { Html } from './views/html';

export function sendPage(res: Response, status: number, page: Html): void {
  res.status(status).type('html').send(page.value);
}
