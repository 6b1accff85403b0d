import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Agent, fetch, request } from 'undici';
import { HostResolver, OutboundUrlPolicy, policyViolationOf, ResolvedAddress } from './outbound-url-policy';
import { UrlPolicyError, UrlViolation } from './url-policy.rules';

/** Fake DNS: names map to fixed addresses; unknown names do not resolve. Counts calls per name. */
function fakeResolver(table: Record<string, string[]>): HostResolver & { calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls[hostname] = (calls[hostname] ?? 0) + 1;
    const found = table[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { calls });
}

async function violation(promise: Promise<unknown>): Promise<{ violation: UrlViolation; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof UrlPolicyError) return { violation: error.violation, message: error.message };
    throw error;
  }
  throw new Error('expected a UrlPolicyError');
}

describe('OutboundUrlPolicy.check', () => {
  const dns = fakeResolver({
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'rebind.example.com': ['93.184.216.34', '10.0.0.7'],
    'v6private.example.com': ['fd00::1'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
    'empty.example.com': [],
  });
  const strict = new OutboundUrlPolicy({ allowPrivateUrls: false }, dns);
  const dev = new OutboundUrlPolicy({ allowPrivateUrls: true }, dns);

  it('returns the URL and every resolved address when all are public', async () => {
    const checked = await strict.check('https://hooks.example.com/in', { requireHttps: true });
    expect(checked.url.href).toBe('https://hooks.example.com/in');
    expect(checked.addresses).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
  });

  it.each(['rebind.example.com', 'v6private.example.com', 'mapped.example.com', 'metadata.example.com'])(
    'refuses %s, which resolves to a non-public address',
    async (host) => {
      expect(await violation(strict.check(`https://${host}/`, { requireHttps: true }))).toEqual({
        violation: 'non_public_address',
        message: 'host resolves to a non-public address',
      });
    },
  );

  it('reports names that do not resolve (or resolve to nothing)', async () => {
    const expected = { violation: 'unresolvable', message: 'host does not resolve' };
    expect(await violation(strict.check('https://nowhere.example.com/', { requireHttps: true }))).toEqual(expected);
    expect(await violation(strict.check('https://empty.example.com/', { requireHttps: true }))).toEqual(expected);
  });

  it('applies the shape rules before any lookup', async () => {
    const before = { ...dns.calls };
    expect((await violation(strict.check('http://hooks.example.com/', { requireHttps: true }))).message).toBe('must use https');
    expect((await violation(strict.check('https://127.0.0.1/', { requireHttps: true }))).violation).toBe('ip_literal');
    expect((await violation(strict.check('https://localhost/', { requireHttps: true }))).violation).toBe('forbidden_host');
    expect(dns.calls).toEqual(before);
  });

  it('allows http when https is not required', async () => {
    await expect(strict.check('http://hooks.example.com/a.jpg', { requireHttps: false })).resolves.toBeDefined();
  });

  it('with allowPrivate admits private addresses and IP literals without a lookup', async () => {
    await expect(dev.check('https://rebind.example.com/', { requireHttps: true })).resolves.toBeDefined();
    const checked = await dev.check('http://[::1]:8080/x', { requireHttps: true });
    expect(checked.addresses).toEqual([{ address: '::1', family: 6 }]);
    expect((await dev.check('http://127.0.0.1/', { requireHttps: false })).addresses).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect((await violation(dev.check('https://nowhere.example.com/', { requireHttps: true }))).violation).toBe('unresolvable');
  });

  it('uses the system resolver by default', async () => {
    const system = new OutboundUrlPolicy({ allowPrivateUrls: true });
    const checked = await system.check('http://localhost:1/', { requireHttps: false });
    expect(checked.addresses.map((entry) => entry.address)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(127\.0\.0\.1|::1)$/)]),
    );
    const strictSystem = new OutboundUrlPolicy({ allowPrivateUrls: false });
    expect((await violation(strictSystem.check('https://does-not-exist.invalid-tld-zz/', { requireHttps: true }))).violation).toBe(
      'unresolvable',
    );
  });
});

describe('OutboundUrlPolicy.createAgent', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  let requests = 0;
  const agents: Agent[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests += 1;
      res.setHeader('content-type', 'text/plain');
      res.end(`hello ${req.url}`);
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.close()));
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    connections = 0;
    requests = 0;
  });

  function agentOf(policy: OutboundUrlPolicy, connections = 4): Agent {
    const agent = policy.createAgent({ connections, keepAliveTimeoutMs: 5_000, connectTimeoutMs: 2_000 });
    agents.push(agent);
    return agent;
  }

  it('connects through its own lookup and reuses keep-alive sockets', async () => {
    const dns = fakeResolver({ 'app.example.com': ['127.0.0.1'] });
    const agent = agentOf(new OutboundUrlPolicy({ allowPrivateUrls: true }, dns), 1);
    for (const path of ['/one', '/two', '/three']) {
      const res = await request(`http://app.example.com:${port}${path}`, { dispatcher: agent });
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toBe(`hello ${path}`);
    }
    expect(requests).toBe(3);
    expect(connections).toBe(1);
    expect(dns.calls['app.example.com']).toBe(1);
  });

  it('refuses to connect when the name resolves to a non-public address at connect time', async () => {
    const dns = fakeResolver({ 'app.example.com': ['127.0.0.1'] });
    const agent = agentOf(new OutboundUrlPolicy({ allowPrivateUrls: false }, dns));
    const error = await request(`http://app.example.com:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(policyViolationOf(error)?.violation).toBe('non_public_address');
    expect(connections).toBe(0);
  });

  it('defeats DNS rebinding: the address is checked on the lookup the socket uses', async () => {
    let answer = '93.184.216.34';
    const policy = new OutboundUrlPolicy({ allowPrivateUrls: false }, async () => [{ address: answer, family: 4 }]);
    await expect(policy.check(`http://rebinding.example.com:${port}/`, { requireHttps: false })).resolves.toBeDefined();
    answer = '127.0.0.1'; // the attacker's DNS flips to loopback after the check
    const error = await request(`http://rebinding.example.com:${port}/`, { dispatcher: agentOf(policy) }).catch((e: unknown) => e);
    expect(policyViolationOf(error)?.violation).toBe('non_public_address');
    expect(connections).toBe(0);
  });

  it('refuses any resolution that includes a non-public address, whatever family is asked', async () => {
    const dns = fakeResolver({ 'mixed.example.com': ['93.184.216.34', '::1'] });
    const agent = agentOf(new OutboundUrlPolicy({ allowPrivateUrls: false }, dns));
    const error = await request(`http://mixed.example.com:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(policyViolationOf(error)?.violation).toBe('non_public_address');
  });

  it.each(['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]'])('refuses the IP-literal host %s (Node skips lookup for literals)', async (host) => {
    const agent = agentOf(new OutboundUrlPolicy({ allowPrivateUrls: false }, fakeResolver({})));
    const error = await request(`http://${host}:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(policyViolationOf(error)?.violation).toBe('non_public_address');
    expect(connections).toBe(0);
  });

  it('reports a name that stops resolving as unresolvable', async () => {
    const agent = agentOf(new OutboundUrlPolicy({ allowPrivateUrls: false }, fakeResolver({})));
    const error = await request(`http://gone.example.com:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(policyViolationOf(error)?.violation).toBe('unresolvable');
  });

  it('is found through fetch error wrapping', async () => {
    const agent = agentOf(new OutboundUrlPolicy({ allowPrivateUrls: false }, fakeResolver({ 'app.example.com': ['10.1.2.3'] })));
    const error = await fetch(`http://app.example.com:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(policyViolationOf(error)?.message).toBe('host resolves to a non-public address');
  });

  it('admits loopback IP literals with allowPrivate', async () => {
    const agent = agentOf(new OutboundUrlPolicy({ allowPrivateUrls: true }));
    const res = await request(`http://127.0.0.1:${port}/x`, { dispatcher: agent });
    expect(await res.body.text()).toBe('hello /x');
  });

  it('never follows redirects', async () => {
    const redirecting = createServer((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/target` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const agent = agentOf(new OutboundUrlPolicy({ allowPrivateUrls: true }));
      const res = await request(`http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/`, { dispatcher: agent });
      expect(res.statusCode).toBe(302);
      await res.body.dump();
      expect(requests).toBe(0);
    } finally {
      await new Promise((resolve) => redirecting.close(resolve));
    }
  });
});

describe('policyViolationOf', () => {
  const violation = new UrlPolicyError('non_public_address', 'host resolves to a non-public address');

  it('finds the error itself, through causes and aggregate errors', () => {
    expect(policyViolationOf(violation)).toBe(violation);
    expect(policyViolationOf(new TypeError('fetch failed', { cause: violation }))).toBe(violation);
    expect(policyViolationOf(new Error('a', { cause: new Error('b', { cause: violation }) }))).toBe(violation);
    expect(policyViolationOf(new AggregateError([new Error('refused'), violation]))).toBe(violation);
  });

  it('returns undefined for network failures and non-errors', () => {
    expect(policyViolationOf(new Error('connect ECONNREFUSED'))).toBeUndefined();
    expect(policyViolationOf(undefined)).toBeUndefined();
    expect(policyViolationOf('text')).toBeUndefined();
    const cyclic: { cause?: unknown } = {};
    cyclic.cause = cyclic;
    expect(policyViolationOf(cyclic)).toBeUndefined();
  });
});
