import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { AppConfig } from '../config/config';
import { assignRequestId } from './http/request-id';
import { ApiRequest, routeTemplate } from './http/request-context';

/**
 * Structured JSON logs (pino): one line per request with request id, account id,
 * route (template), status and duration. Keys, secrets and signatures never reach a log:
 * request headers are not logged at all, and bodies never are. With LOG_LEVEL=silent the
 * request logger is not mounted at all (it would still build a child logger per request);
 * the entry middleware (src/http-entry.middleware.ts) assigns request ids either way.
 */
export function loggerParams(config: AppConfig, processName: 'api' | 'worker' | 'cli'): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      base: { process: processName, version: config.version },
      genReqId: (req: IncomingMessage, res: ServerResponse) => assignRequestId(req, res),
      customAttributeKeys: { reqId: 'requestId', responseTime: 'durationMs' },
      customProps: requestLineProps,
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, path: req.url.split('?')[0] }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
        // pino-http gives a 5xx line without an error of its own a made-up one ("failed with status code
        // 503"): its stack says nothing, and a stack per request is what an outage must not log. The
        // real error of a 500 is logged by the problem filter.
        err: () => undefined,
      },
      customSuccessMessage: (req, res) => `${req.method} ${(req.url ?? '').split('?')[0]} ${res.statusCode}`,
      customErrorMessage: (req, res) => `${req.method} ${(req.url ?? '').split('?')[0]} ${res.statusCode}`,
      // A 503 is a dependency's outage (logged once as such), not a failure of ours.
      customLogLevel: (_req, res, error) => (res.statusCode === 503 ? 'warn' : error || res.statusCode >= 500 ? 'error' : 'info'),
      redact: { paths: ['req.headers', 'headers["x-api-key"]', '*.signingSecret', '*.apiKey'], remove: true },
      quietReqLogger: true,
    },
    ...(config.logLevel === 'silent' ? { forRoutes: [] } : {}),
  };
}

const ARRIVED = Symbol('request line: arrived');

/**
 * The account and the route template of a request's line, read when the line is written (after routing
 * and auth). pino-http also asks when the request arrives and binds the answer into the line: then the
 * route is the logging middleware's own catch-all, and the line would carry `route` twice, a duplicate
 * key that log stores such as Elasticsearch reject. So the first ask gets nothing.
 */
function requestLineProps(req: IncomingMessage & { [ARRIVED]?: true }): object {
  if (!req[ARRIVED]) {
    req[ARRIVED] = true;
    return {};
  }
  return {
    accountId: (req as ApiRequest).caller?.accountId,
    route: routeTemplate(req),
  };
}
