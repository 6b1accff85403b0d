import { createServer } from 'node:http';

/*
 * The webhook receiver, its own process: answers every POST 204 at once and notes each delivery
 * by its webhook-id (so a second POST of one delivery shows as a duplicate), when it first arrived
 * (wall-clock ms with sub-ms precision, comparable across processes on this machine) and the
 * property it carries. `GET /__stats?path=/x` reports what arrived on that path; `DELETE /__stats`
 * forgets everything. A `delayMs` query parameter on the delivery URL delays the answer (a slow
 * receiver, S10). `node receiver.js <port>`
 */
interface Arrival {
  at: number;
  propertyId?: string;
}
const byPath = new Map<string, { posts: number; deliveries: Map<string, Arrival> }>();
const now = () => performance.timeOrigin + performance.now();

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://receiver');
  if (url.pathname === '/__stats') {
    if (req.method === 'DELETE') byPath.clear();
    const seen = byPath.get(url.searchParams.get('path') ?? '') ?? { posts: 0, deliveries: new Map() };
    const arrivals = [...seen.deliveries.values()];
    const firstAt = arrivals.reduce((min, a) => Math.min(min, a.at), Infinity);
    const lastAt = arrivals.reduce((max, a) => Math.max(max, a.at), -Infinity);
    const body = {
      posts: seen.posts,
      unique: seen.deliveries.size,
      firstAt: arrivals.length ? firstAt : null,
      lastAt: arrivals.length ? lastAt : null,
      ...(url.searchParams.has('arrivals') ? { arrivals: Object.fromEntries(arrivals.map((a) => [a.propertyId, a.at])) } : {}),
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = now();
    let seen = byPath.get(url.pathname);
    if (!seen) byPath.set(url.pathname, (seen = { posts: 0, deliveries: new Map() }));
    seen.posts++;
    const id = String(req.headers['webhook-id'] ?? `anonymous-${seen.posts}`);
    if (!seen.deliveries.has(id)) {
      let propertyId: string | undefined;
      try {
        propertyId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { results?: Array<{ propertyId?: string }> }).results?.[0]
          ?.propertyId;
      } catch {
        propertyId = undefined;
      }
      seen.deliveries.set(id, { at, propertyId });
    }
    const delayMs = Number(url.searchParams.get('delayMs') ?? 0);
    if (delayMs > 0) setTimeout(() => res.writeHead(204).end(), delayMs);
    else res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.argv[2]), '127.0.0.1');
