import { readFileSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A fixture calendar of test/fixtures/ical (written by hand from each channel's documented export). */
export function icsFixture(name: string): string {
  return readFileSync(join(__dirname, '../fixtures/ical', name), 'utf8');
}

export interface CalendarRoute {
  body: string | Buffer;
  status?: number;
  contentType?: string;
  /** Sent as ETag; a request with the same If-None-Match gets 304. */
  etag?: string;
  /** Sent as Last-Modified; a request with the same If-Modified-Since gets 304. */
  lastModified?: string;
}

export interface CalendarServer {
  /** Base URL, e.g. http://127.0.0.1:54321 */
  url: string;
  serve(path: string, route: CalendarRoute): void;
  /** Requests to the path wait until the returned function is called. */
  hold(path: string): () => void;
  /** Every request, with when it arrived (ms since the epoch). */
  requests: Array<{ path: string; headers: IncomingHttpHeaders; at: number }>;
  hits(path: string): number;
  close(): Promise<void>;
}

/** A loopback server that serves calendars like a channel does (ETag / Last-Modified, 304). */
export async function startCalendarServer(): Promise<CalendarServer> {
  const routes = new Map<string, CalendarRoute>();
  const holds = new Map<string, Promise<void>>();
  const requests: CalendarServer['requests'] = [];
  const server: Server = createServer(async (req, res) => {
    const path = req.url ?? '/';
    requests.push({ path, headers: req.headers, at: Date.now() });
    await holds.get(path);
    const route = routes.get(path);
    if (!route) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no such calendar');
    const validators: Record<string, string> = {};
    if (route.etag) validators.etag = route.etag;
    if (route.lastModified) validators['last-modified'] = route.lastModified;
    const fresh =
      (route.etag !== undefined && req.headers['if-none-match'] === route.etag) ||
      (route.lastModified !== undefined && req.headers['if-modified-since'] === route.lastModified);
    if (fresh) return void res.writeHead(304, validators).end();
    res.writeHead(route.status ?? 200, { 'content-type': route.contentType ?? 'text/calendar; charset=utf-8', ...validators });
    res.end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve: (path, route) => routes.set(path, route),
    hold: (path) => {
      let release!: () => void;
      holds.set(path, new Promise<void>((resolve) => (release = resolve)));
      return () => {
        holds.delete(path);
        release();
      };
    },
    requests,
    hits: (path) => requests.filter((request) => request.path === path).length,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The environment of a file whose worker runs the scan for due feeds as production does: its own
 * database (the scan reads all of it), its own Redis prefix, the scan every 200 ms, the webhook sweep
 * and retention off, feeds synced every `syncIntervalMs`.
 */
export function calendarScanEnv(databaseUrl: string, name: string, syncIntervalMs: number): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-${name}`,
    WEBHOOK_SWEEP_INTERVAL_MS: '0',
    WEBHOOK_RETENTION_INTERVAL_MS: '0',
    CALENDAR_SCAN_INTERVAL_MS: '200',
    CALENDAR_SYNC_INTERVAL_MS: String(syncIntervalMs),
  };
}
