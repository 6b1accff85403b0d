import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  receivedAt: Date;
}

/** How the receiver answers one request: status (default 200), extra headers, body, delay before answering. */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

export type Responder = (request: ReceivedRequest, index: number) => Reply | Promise<Reply>;

export interface WebhookReceiver {
  /** Base URL, e.g. http://127.0.0.1:54321 */
  url: string;
  requests: ReceivedRequest[];
  /** Replies used first, one per request, in order; then `respondWith`'s function (default 200 "ok"). */
  enqueue(...replies: Reply[]): void;
  respondWith(responder: Responder): void;
  /** Resolves once at least `count` requests arrived (optionally only those matching), or rejects after timeoutMs. */
  waitFor(count: number, timeoutMs?: number, match?: (request: ReceivedRequest) => boolean): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A loopback HTTP receiver recording every request's raw bytes and answering per a script. */
export async function startReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const script: Reply[] = [];
  let responder: Responder = () => ({ status: 200, body: 'ok' });
  let waiters: Array<() => void> = [];

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        receivedAt: new Date(),
      };
      const index = requests.push(request) - 1;
      waiters.forEach((wake) => wake());
      const reply = script.length > 0 ? script.shift()! : await responder(request, index);
      if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      if (res.destroyed) return;
      res.writeHead(reply.status ?? 200, reply.headers);
      res.end(reply.body ?? '');
    });
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => script.push(...replies),
    respondWith: (fn) => {
      responder = fn;
    },
    waitFor: (count, timeoutMs = 10_000, match = () => true) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = requests.filter(match);
          if (found.length >= count) {
            cleanup();
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`receiver got ${requests.filter(match).length} of ${count} expected request(s) within ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters = waiters.filter((w) => w !== check);
        };
        waiters.push(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
}

/** The receivers a test file starts (`receiver()`), closed together at its end (`closeAll()`). */
export function receiverPool(): { receiver(): Promise<WebhookReceiver>; closeAll(): Promise<void> } {
  const receivers: WebhookReceiver[] = [];
  return {
    receiver: async () => {
      const r = await startReceiver();
      receivers.push(r);
      return r;
    },
    closeAll: async () => {
      await Promise.all(receivers.map((r) => r.close()));
    },
  };
}
