import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** One request the token endpoint got: its headers and its form fields. */
export interface TokenRequest {
  headers: IncomingHttpHeaders;
  form: Record<string, string>;
}

/** How the endpoint answers one request (default: 200 with a fresh token `tok-<n>` and expires_in 3600). */
export interface TokenReply {
  status?: number;
  body?: unknown;
}

export interface TokenEndpoint {
  /** http://127.0.0.1:<port>/oauth/token (the URL rules let loopback through with ALLOW_PRIVATE_URLS=true). */
  url: string;
  requests: TokenRequest[];
  /** Replies used first, one per request, in order; then `respondWith`'s function. */
  enqueue(...replies: TokenReply[]): void;
  respondWith(reply: (n: number) => TokenReply): void;
  close(): Promise<void>;
}

/** A loopback OAuth2 token endpoint for the client-credentials grant, recording every request (issue 42's tests). */
export async function startTokenEndpoint(): Promise<TokenEndpoint> {
  const requests: TokenRequest[] = [];
  const script: TokenReply[] = [];
  let responder = (n: number): TokenReply => ({ body: { access_token: `tok-${n}`, token_type: 'Bearer', expires_in: 3600 } });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const n = requests.push({ headers: req.headers, form });
      const reply = script.length > 0 ? script.shift()! : responder(n);
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/oauth/token`,
    requests,
    enqueue: (...replies) => script.push(...replies),
    respondWith: (fn) => (responder = fn),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
