import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { HostResolver, OutboundUrlPolicy } from './outbound-url-policy';
import { DownloadError, DownloadFailure, safeDownload, SafeDownloader, UrlChecker } from './safe-download';
import { UrlPolicyError } from './url-policy.rules';

/** Fake DNS so named hosts reach the loopback test server. */
function resolver(table: Record<string, string>): HostResolver {
  return async (hostname) => {
    const address = table[hostname];
    if (!address) throw new Error(`ENOTFOUND ${hostname}`);
    return [{ address, family: 4 }];
  };
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');

describe('safeDownload (loopback server)', () => {
  let server: Server;
  let base: string;
  let port: number;
  const hits: Record<string, number> = {};
  const closedEarly: string[] = [];
  const agents: Agent[] = [];

  function route(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    hits[path] = (hits[path] ?? 0) + 1;
    const n = Number(url.searchParams.get('n') ?? 0);
    res.on('close', () => {
      if (!res.writableFinished) closedEarly.push(path);
    });
    if (path === '/ok') {
      res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    } else if (path === '/no-type') {
      res.removeHeader('content-type');
      res.writeHead(200).end('abc');
    } else if (path === '/missing') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    } else if (path === '/error') {
      res.writeHead(500).end();
    } else if (path === '/slow-headers') {
      setTimeout(() => res.writeHead(200).end('late'), 2000).unref();
    } else if (path === '/slow-body') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write('partial');
    } else if (path === '/sized') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(n) }).end(Buffer.alloc(n, 1));
    } else if (path === '/chunked') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(Math.floor(n / 2), 2));
      res.end(Buffer.alloc(n - Math.floor(n / 2), 2));
    } else if (path === '/huge-announced') {
      res.writeHead(200, { 'content-length': String(100 * 1024 * 1024) });
      res.write(Buffer.alloc(1024));
    } else if (path === '/endless') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const timer = setInterval(() => res.write(Buffer.alloc(16 * 1024, 3)), 5);
      res.on('close', () => clearInterval(timer));
    } else if (path.startsWith('/r/')) {
      const left = Number(path.slice(3));
      res.writeHead(302, { location: left > 0 ? `/r/${left - 1}` : '/ok' }).end();
    } else if (path === '/loop') {
      res.writeHead(301, { location: `${base}/loop` }).end();
    } else if (path === '/to') {
      res.writeHead(307, { location: url.searchParams.get('url') ?? '' }).end();
    } else if (path === '/no-location') {
      res.writeHead(302).end();
    } else if (path === '/versioned') {
      const fresh = req.headers['if-none-match'] === '"v1"' || req.headers['if-modified-since'] === 'Wed, 01 Jan 2030 00:00:00 GMT';
      const validators = { etag: '"v1"', 'last-modified': 'Wed, 01 Jan 2030 00:00:00 GMT', 'content-type': 'text/calendar' };
      res.writeHead(fresh ? 304 : 200, fresh ? { etag: '"v1"' } : validators).end(fresh ? undefined : 'BEGIN');
    } else if (path === '/always-304') {
      res.writeHead(304).end();
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`secret ${path}`);
    }
  }

  beforeAll(async () => {
    server = createServer(route);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.close()));
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    for (const key of Object.keys(hits)) delete hits[key];
    closedEarly.length = 0;
  });

  const dev = new OutboundUrlPolicy({ allowPrivateUrls: true }, resolver({ 'files.example.com': '127.0.0.1' }));
  const limits = { timeoutMs: 3000, maxBytes: 1024 * 1024, label: 'the image' };

  function agentOf(policy: OutboundUrlPolicy): Agent {
    const agent = policy.createAgent({ connectTimeoutMs: 2000 });
    agents.push(agent);
    return agent;
  }

  async function failure(promise: Promise<unknown>): Promise<{ failure: DownloadFailure; message: string; cause?: unknown }> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof DownloadError) return { failure: error.failure, message: error.message, cause: error.cause };
      throw error;
    }
    throw new Error('expected a DownloadError');
  }

  it('downloads bytes, content type and final URL', async () => {
    const result = await safeDownload(dev, agentOf(dev), `${base}/ok`, limits);
    expect(result.bytes.equals(PNG)).toBe(true);
    expect(result.contentType).toBe('image/png');
    expect(result.finalUrl).toBe(`${base}/ok`);
  });

  it('makes a GET conditional: validators come back, a 304 is notModified with no body', async () => {
    const first = await safeDownload(dev, agentOf(dev), `${base}/versioned`, { ...limits, conditional: {} });
    expect(first).toMatchObject({ notModified: false, etag: '"v1"', lastModified: 'Wed, 01 Jan 2030 00:00:00 GMT' });
    expect(first.bytes.toString()).toBe('BEGIN');
    const byEtag = await safeDownload(dev, agentOf(dev), `${base}/versioned`, { ...limits, conditional: { etag: '"v1"' } });
    expect(byEtag).toMatchObject({ notModified: true, etag: '"v1"' });
    expect(byEtag.bytes.length).toBe(0);
    const byDate = await safeDownload(dev, agentOf(dev), `${base}/versioned`, {
      ...limits,
      conditional: { lastModified: 'Wed, 01 Jan 2030 00:00:00 GMT' },
    });
    expect(byDate.notModified).toBe(true);
  });

  it('fails a 304 that answers an unconditional GET', async () => {
    expect(await failure(safeDownload(dev, agentOf(dev), `${base}/always-304`, limits))).toMatchObject({
      failure: 'http_status',
      message: 'the URL answered with HTTP 304',
    });
  });

  it('reports a missing content type as undefined', async () => {
    const result = await safeDownload(dev, agentOf(dev), `${base}/no-type`, limits);
    expect(result.contentType).toBeUndefined();
    expect(result.bytes.toString()).toBe('abc');
  });

  it.each([
    ['/missing', 'the URL answered with HTTP 404'],
    ['/error', 'the URL answered with HTTP 500'],
    ['/no-location', 'the URL answered with HTTP 302 but no Location'],
  ])('fails %s with http_status', async (path, message) => {
    expect(await failure(safeDownload(dev, agentOf(dev), `${base}${path}`, limits))).toMatchObject({ failure: 'http_status', message });
  });

  it('times out while waiting for headers', async () => {
    const started = Date.now();
    const result = await failure(safeDownload(dev, agentOf(dev), `${base}/slow-headers`, { ...limits, timeoutMs: 300 }));
    expect(result).toMatchObject({ failure: 'timeout', message: 'the URL did not answer within 0.3 s' });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('times out while the body trickles', async () => {
    const result = await failure(safeDownload(dev, agentOf(dev), `${base}/slow-body`, { ...limits, timeoutMs: 300 }));
    expect(result).toMatchObject({ failure: 'timeout', message: 'the URL did not answer within 0.3 s' });
  });

  describe('byte cap', () => {
    const capped = { ...limits, maxBytes: 1000 };

    it.each(['/sized', '/chunked'])('accepts exactly maxBytes from %s', async (path) => {
      const result = await safeDownload(dev, agentOf(dev), `${base}${path}?n=1000`, capped);
      expect(result.bytes.length).toBe(1000);
    });

    it.each(['/sized', '/chunked'])('refuses maxBytes + 1 from %s', async (path) => {
      expect(await failure(safeDownload(dev, agentOf(dev), `${base}${path}?n=1001`, capped))).toMatchObject({
        failure: 'too_large',
        message: 'the image is larger than 1000 bytes',
      });
    });

    it('refuses at once when Content-Length announces too much', async () => {
      const started = Date.now();
      const result = await failure(safeDownload(dev, agentOf(dev), `${base}/huge-announced`, { ...limits, maxBytes: 10 * 1024 * 1024 }));
      expect(result).toMatchObject({ failure: 'too_large', message: 'the image is larger than 10 MB' });
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('stops an endless body without Content-Length as soon as the cap is passed', async () => {
      const started = Date.now();
      const result = await failure(safeDownload(dev, agentOf(dev), `${base}/endless`, { ...limits, maxBytes: 64 * 1024 }));
      expect(result).toMatchObject({ failure: 'too_large', message: 'the image is larger than 64 KB' });
      expect(Date.now() - started).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(closedEarly).toContain('/endless');
    });

    it('names the file generically by default', async () => {
      expect((await failure(safeDownload(dev, agentOf(dev), `${base}/sized?n=20`, { timeoutMs: 1000, maxBytes: 10 }))).message).toBe(
        'the file is larger than 10 bytes',
      );
    });
  });

  describe('redirects', () => {
    it('follows up to 3 redirects (relative Location) and reports the final URL', async () => {
      const result = await safeDownload(dev, agentOf(dev), `${base}/r/2`, limits);
      expect(result.finalUrl).toBe(`${base}/ok`);
      expect(result.bytes.equals(PNG)).toBe(true);
      expect(hits['/r/2'] + hits['/r/1'] + hits['/r/0']).toBe(3);
    });

    it('refuses a 4th redirect', async () => {
      expect(await failure(safeDownload(dev, agentOf(dev), `${base}/r/3`, limits))).toMatchObject({
        failure: 'too_many_redirects',
        message: 'the URL redirected more than 3 times',
      });
      expect(hits['/ok']).toBeUndefined();
    });

    it('stops a redirect loop', async () => {
      expect((await failure(safeDownload(dev, agentOf(dev), `${base}/loop`, limits))).failure).toBe('too_many_redirects');
      expect(hits['/loop']).toBe(4);
    });

    it('follows a redirect to another allowed host', async () => {
      const result = await safeDownload(
        dev,
        agentOf(dev),
        `${base}/to?url=${encodeURIComponent(`http://files.example.com:${port}/ok`)}`,
        limits,
      );
      expect(result.finalUrl).toBe(`http://files.example.com:${port}/ok`);
    });

    it('refuses a redirect to a non-http scheme', async () => {
      const result = await failure(safeDownload(dev, agentOf(dev), `${base}/to?url=${encodeURIComponent('file:///etc/passwd')}`, limits));
      expect(result).toMatchObject({ failure: 'forbidden_url', message: 'redirect to a forbidden URL: must use http or https' });
    });

    describe('checks every hop with the policy', () => {
      // First hop on a permitted name, later hops under the production policy: the redirect check is what is tested.
      const strict = new OutboundUrlPolicy(
        { allowPrivateUrls: false },
        resolver({ 'private.example.com': '10.0.0.1', 'loopback.example.com': '127.0.0.1' }),
      );
      const perHop: UrlChecker = {
        check: (raw, options) => (new URL(raw).hostname === 'files.example.com' ? dev.check(raw, options) : strict.check(raw, options)),
      };
      const start = (target: string) => `http://files.example.com:${port}/to?url=${encodeURIComponent(target)}`;

      it.each([
        ['http://loopback.example.com:PORT/secret', 'redirect to a forbidden host: host resolves to a non-public address'],
        ['http://private.example.com/secret', 'redirect to a forbidden host: host resolves to a non-public address'],
        ['http://127.0.0.1:PORT/secret', 'redirect to a forbidden host: host must be a domain name, not an IP address'],
        ['http://169.254.169.254/latest/meta-data/', 'redirect to a forbidden host: host must be a domain name, not an IP address'],
        [
          'http://metadata.google.internal/computeMetadata/v1/',
          'redirect to a forbidden host: host is a local, internal or cloud-metadata name',
        ],
        ['http://localhost/secret', 'redirect to a forbidden host: host is a local, internal or cloud-metadata name'],
      ])('refuses a redirect to %s', async (target, message) => {
        const result = await failure(safeDownload(perHop, agentOf(dev), start(target.replace('PORT', String(port))), limits));
        expect(result).toMatchObject({ failure: 'forbidden_url', message });
        expect(result.cause).toBeInstanceOf(UrlPolicyError);
        expect(hits['/secret']).toBeUndefined();
      });

      it('reports a redirect to a name that does not resolve as unreachable', async () => {
        const result = await failure(safeDownload(perHop, agentOf(dev), start('http://nowhere.example.com/x'), limits));
        expect(result).toMatchObject({
          failure: 'unreachable',
          message: 'the redirect target could not be reached: host does not resolve',
        });
      });
    });
  });

  describe('with the production policy (allowPrivate false)', () => {
    const strict = new OutboundUrlPolicy({ allowPrivateUrls: false }, resolver({ 'files.example.com': '127.0.0.1' }));

    it('refuses the first URL with the policy message and the violation as cause', async () => {
      const literal = await failure(safeDownload(strict, agentOf(strict), `${base}/ok`, limits));
      expect(literal).toMatchObject({ failure: 'forbidden_url', message: 'host must be a domain name, not an IP address' });
      expect((literal.cause as UrlPolicyError).violation).toBe('ip_literal');
      const named = await failure(safeDownload(strict, agentOf(strict), `http://files.example.com:${port}/ok`, limits));
      expect(named).toMatchObject({ failure: 'forbidden_url', message: 'host resolves to a non-public address' });
      expect(hits['/ok']).toBeUndefined();
    });

    it('refuses a DNS answer that flips to loopback after the check (rebinding)', async () => {
      let answer = '93.184.216.34';
      const flipping = new OutboundUrlPolicy({ allowPrivateUrls: false }, async () => {
        const current = answer;
        answer = '127.0.0.1';
        return [{ address: current, family: 4 }];
      });
      const result = await failure(safeDownload(flipping, agentOf(flipping), `http://rebind.example.com:${port}/ok`, limits));
      expect(result).toMatchObject({ failure: 'forbidden_url', message: 'host resolves to a non-public address' });
      expect(hits['/ok']).toBeUndefined();
    });

    it('reports a host that does not resolve as unreachable', async () => {
      expect(await failure(safeDownload(strict, agentOf(strict), 'https://nowhere.example.com/x.png', limits))).toMatchObject({
        failure: 'unreachable',
        message: 'the URL could not be reached: host does not resolve',
      });
    });

    it('requires https only when asked', async () => {
      expect(
        await failure(safeDownload(strict, agentOf(strict), 'http://nowhere.example.com/x.png', { ...limits, requireHttps: true })),
      ).toMatchObject({
        failure: 'forbidden_url',
        message: 'must use https',
      });
    });
  });

  it('reports a refused connection as unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failure(safeDownload(dev, agentOf(dev), `http://127.0.0.1:${closedPort}/x`, limits))).toMatchObject({
      failure: 'unreachable',
      message: 'the URL could not be reached: connection refused',
    });
  });

  it('SafeDownloader applies configured limits and one shared agent', async () => {
    const downloader = new SafeDownloader(dev, { download: { timeoutMs: 2000, maxBytes: 1000 } });
    try {
      expect((await downloader.download(`${base}/ok`)).bytes.equals(PNG)).toBe(true);
      expect((await failure(downloader.download(`${base}/sized?n=1001`, { label: 'the image' }))).message).toBe(
        'the image is larger than 1000 bytes',
      );
      expect((await downloader.download(`${base}/sized?n=1001`, { maxBytes: 2000 })).bytes.length).toBe(1001);
    } finally {
      await downloader.onModuleDestroy();
    }
  });
});
