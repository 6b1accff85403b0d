import type { NextFunction, Request, Response } from 'express';
import type { Histogram } from 'prom-client';
import { routeTemplate } from '../http/request-context';

type Timed = Response & { metricsStart?: number; req: Request };
type Child = ReturnType<Histogram<'method' | 'route' | 'status'>['labels']>;

/**
 * Times every request into the histogram by method, route template (`routeTemplate`; `unmatched` when
 * no route matched) and status. Per request: one timestamp on the response,
 * one listener shared by every request, and one observe on a child looked up by a short string
 * (children are cached, so prom-client does not hash the labels again).
 */
export function requestDurationMiddleware(histogram: Histogram<'method' | 'route' | 'status'>) {
  const children = new Map<string, Child>();
  function onFinish(this: Timed): void {
    const route = routeTemplate(this.req) ?? 'unmatched';
    const key = `${this.req.method} ${this.statusCode} ${route}`;
    let child = children.get(key);
    if (!child) {
      child = histogram.labels(this.req.method, route, String(this.statusCode));
      children.set(key, child);
    }
    child.observe((performance.now() - this.metricsStart!) / 1000);
  }
  return (_req: Request, res: Timed, next: NextFunction): void => {
    res.metricsStart = performance.now();
    res.on('finish', onFinish);
    next();
  };
}
