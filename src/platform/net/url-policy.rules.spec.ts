import {
  checkUrlShape,
  isForbiddenName,
  isIpLiteralHost,
  isPublicAddress,
  rawHostOf,
  UrlPolicyError,
  UrlRules,
  UrlViolation,
} from './url-policy.rules';

const strict: UrlRules = { allowPrivate: false, requireHttps: true };
const strictHttp: UrlRules = { allowPrivate: false, requireHttps: false };
const dev: UrlRules = { allowPrivate: true, requireHttps: true };

function violationOf(raw: string, rules: UrlRules): { violation: UrlViolation; message: string } | undefined {
  try {
    checkUrlShape(raw, rules);
    return undefined;
  } catch (error) {
    if (!(error instanceof UrlPolicyError)) throw error;
    return { violation: error.violation, message: error.message };
  }
}

describe('checkUrlShape', () => {
  describe('happy paths', () => {
    it.each([
      'https://hooks.example.com/path?x=1#frag',
      'https://HOOKS.Example.COM:8443/a',
      'https://example.com./trailing-dot-fqdn',
      'https://xn--bcher-kva.example/',
      'https://bücher.example/',
      'https://a.b.c.d.example.org',
      'https://1.2.3.4.nip.example.com/',
      'https://api.localhost-services.com/', // "localhost" only as a whole label is refused
      'https://internal.example.com/', // "internal" as a subdomain label is fine
    ])('accepts %s', (raw) => {
      const url = checkUrlShape(raw, strict);
      expect(url).toBeInstanceOf(URL);
      expect(url.protocol).toBe('https:');
    });

    it('returns the normalised URL', () => {
      expect(checkUrlShape('https://Hooks.Example.com/a/../b', strict).href).toBe('https://hooks.example.com/b');
    });

    it('accepts http when https is not required', () => {
      expect(checkUrlShape('http://images.example.com/a.jpg', strictHttp).protocol).toBe('http:');
    });
  });

  describe('malformed', () => {
    it.each(['', '   ', 'not a url', '/relative/path', 'example.com/path', 'https://', 'https://:443/', 'https://exa mple.com/'])(
      'rejects %j',
      (raw) => {
        expect(violationOf(raw, strict)).toEqual({ violation: 'malformed', message: 'must be an absolute http(s) URL' });
      },
    );

    it('rejects non-string input without throwing a TypeError', () => {
      expect(violationOf(undefined as unknown as string, strict)?.violation).toBe('malformed');
      expect(violationOf(42 as unknown as string, strict)?.violation).toBe('malformed');
    });

    it.each(['https://user:pass@hooks.example.com/', 'https://user@hooks.example.com/', 'https://:pass@hooks.example.com/'])(
      'rejects userinfo in %s (even with allowPrivate)',
      (raw) => {
        const expected = { violation: 'malformed', message: 'must not contain a user name or password' };
        expect(violationOf(raw, strict)).toEqual(expected);
        expect(violationOf(raw, dev)).toEqual(expected);
      },
    );
  });

  describe('scheme', () => {
    it('requires https when asked', () => {
      expect(violationOf('http://hooks.example.com/', strict)).toEqual({ violation: 'scheme', message: 'must use https' });
    });

    it.each([
      'ftp://example.com/',
      'file:///etc/passwd',
      'gopher://example.com/',
      'javascript:alert(1)',
      'data:text/plain,hi',
      'ws://example.com/',
    ])('rejects %s', (raw) => {
      expect(violationOf(raw, strict)).toEqual({ violation: 'scheme', message: 'must use https' });
      expect(violationOf(raw, strictHttp)).toEqual({ violation: 'scheme', message: 'must use http or https' });
      expect(violationOf(raw, dev)).toEqual({ violation: 'scheme', message: 'must use http or https' });
    });

    it('accepts mixed-case schemes (they normalise)', () => {
      expect(checkUrlShape('HTTPS://hooks.example.com/', strict).protocol).toBe('https:');
    });
  });

  describe('IP literals in every notation', () => {
    it.each([
      'https://8.8.8.8/', // public addresses are refused too: the host must be a name
      'https://127.0.0.1/',
      'https://127.0.0.1:8443/',
      'https://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1/',
      'https://2130706433/', // decimal
      'https://0x7f000001/', // hex
      'https://0x7f.1/', // hex short form
      'https://0177.0.0.1/', // octal
      'https://0177.1/',
      'https://127.1/', // short form
      'https://127.0.1/',
      'https://0/',
      'https://%31%32%37.0.0.1/', // percent-encoded
      'https://１２７.０.０.１/', // full-width digits
      'https://127.0.0.1./', // trailing dot
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:7f00:1]/',
      'https://[fe80::1]/',
      'https://[2606:4700:4700::1111]/',
      'https://[::]/',
    ])('rejects %s', (raw) => {
      expect(violationOf(raw, strict)).toEqual({ violation: 'ip_literal', message: 'host must be a domain name, not an IP address' });
    });

    it('checks the host as typed as well as the normalised one', () => {
      expect(isIpLiteralHost(rawHostOf('https://0x7f.1:443/x'))).toBe(true);
      expect(isIpLiteralHost(rawHostOf('https://u:p@2130706433/x'))).toBe(true);
      expect(isIpLiteralHost(rawHostOf('https://[::1]:80/x'))).toBe(true);
      expect(isIpLiteralHost(rawHostOf('https:\\\\127.1\\x'))).toBe(true);
      expect(isIpLiteralHost(rawHostOf('https://hooks.example.com/x'))).toBe(false);
      expect(rawHostOf('nonsense')).toBe('');
      expect(isIpLiteralHost('')).toBe(false);
    });

    it('does not mistake names with numeric inner labels for addresses', () => {
      expect(isIpLiteralHost('1.2.3.4.example.com')).toBe(false);
      expect(isIpLiteralHost('123.example')).toBe(false);
      expect(isIpLiteralHost('example.0x')).toBe(true); // WHATWG treats a 0x last label as a number
    });
  });

  describe('forbidden names', () => {
    it.each([
      'localhost',
      'LOCALHOST',
      'localhost.',
      'localhost..',
      'api.localhost',
      'localhost.localdomain',
      'ip6-localhost',
      'ip6-loopback',
      'printer.local',
      'service.internal',
      'metadata.google.internal',
      'metadata.google.internal.',
      'metadata',
      'metadata.goog',
      'instance-data',
      'instance-data.ec2.internal',
      'metadata.azure.com',
      'metadata.packet.net',
      'metadata.platformequinix.com',
      'metadata.tencentyun.com',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
      'nas.home.arpa',
      'box.lan',
      'wiki.intranet',
      'db.corp',
      'router.home',
      'thing.private',
      'site.test',
      'x.invalid',
      'abc.onion',
      'x.alt',
      'host.localdomain',
    ])('rejects %s', (host) => {
      expect(violationOf(`https://${host}/hook`, strict)).toEqual({
        violation: 'forbidden_host',
        message: 'host is a local, internal or cloud-metadata name',
      });
    });

    it.each(['wiki', 'printer', 'db', 'printer.'])('rejects the single-label name %s', (host) => {
      expect(violationOf(`https://${host}/hook`, strict)).toEqual({
        violation: 'forbidden_host',
        message: 'host must be a fully qualified public domain name',
      });
    });

    it('matches whole labels only', () => {
      expect(isForbiddenName('mylocal.example')).toBe(false);
      expect(isForbiddenName('local.example.com')).toBe(false);
      expect(isForbiddenName('metadata.example.com')).toBe(false);
      expect(isForbiddenName('notlocalhost')).toBe(false);
      expect(isForbiddenName('x.local')).toBe(true);
    });

    it('rejects a name made only of dots', () => {
      expect(violationOf('https://./', strict)?.violation).toBe('malformed');
    });
  });

  describe('allowPrivate (development and tests)', () => {
    it.each([
      'http://127.0.0.1:3000/hook',
      'http://localhost:3000/hook',
      'http://[::1]:3000/hook',
      'https://10.0.0.5/',
      'http://2130706433/',
      'http://intranet/',
      'http://metadata.google.internal/',
      'https://hooks.example.com/',
    ])('admits %s', (raw) => {
      expect(checkUrlShape(raw, dev)).toBeInstanceOf(URL);
    });

    it('still rejects malformed URLs and other schemes', () => {
      expect(violationOf('nope', dev)?.violation).toBe('malformed');
      expect(violationOf('ftp://127.0.0.1/', dev)?.violation).toBe('scheme');
      expect(violationOf('file:///etc/passwd', dev)?.violation).toBe('scheme');
    });
  });
});

describe('isPublicAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255', // just below CGNAT
    '100.128.0.0', // just above CGNAT
    '172.15.255.255', // just below 172.16/12
    '172.32.0.0', // just above
    '198.17.255.255', // just below benchmarking
    '198.20.0.0', // just above
    '11.0.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '::ffff:0808:0808',
    '[2606:4700:4700::1111]',
    '64:ff9b::8.8.8.8', // NAT64 of a public address
    '2002:0808:0808::1', // 6to4 of a public address
  ])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    // IPv4
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', '0.0.0.0/8'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'RFC 1918'],
    ['10.255.255.255', 'RFC 1918'],
    ['172.16.0.1', 'RFC 1918'],
    ['172.31.255.255', 'RFC 1918'],
    ['192.168.1.1', 'RFC 1918'],
    ['169.254.169.254', 'link-local metadata'],
    ['169.254.0.1', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['100.100.100.200', 'CGNAT (Alibaba metadata)'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.1', 'IETF protocol assignments'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['198.51.100.1', 'TEST-NET-2'],
    ['203.0.113.1', 'TEST-NET-3'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.88.99.1', '6to4 relay anycast'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with zone'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'unique-local (AWS metadata)'],
    ['fec0::1', 'deprecated site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation (RFC 9637)'],
    ['2001:2::1', 'benchmarking'],
    ['100::1', 'discard'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['5f00::1', 'segment routing'],
    ['::7f00:1', 'IPv4-compatible'],
    ['::8.8.8.8', 'IPv4-compatible (deprecated form, never a destination)'],
    // IPv4 embedded in IPv6
    ['::ffff:127.0.0.1', 'mapped loopback'],
    ['::ffff:7f00:1', 'mapped loopback, hex'],
    ['::ffff:10.0.0.1', 'mapped RFC 1918'],
    ['::ffff:169.254.169.254', 'mapped metadata'],
    ['::ffff:a9fe:a9fe', 'mapped metadata, hex'],
    ['::ffff:100.64.0.1', 'mapped CGNAT'],
    ['::ffff:0.0.0.0', 'mapped unspecified'],
    ['::ffff:0:7f00:1', 'SIIT (RFC 6145) loopback'],
    ['64:ff9b::127.0.0.1', 'NAT64 loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 metadata'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a00:1::1', '6to4 of 10.0.0.1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo: public server 65.54.227.120, documentation-range client 192.0.2.45'],
    ['2001:0:7f00:1:0:0:f7f7:f7f7', 'Teredo with loopback server'],
    ['2001:0:808:808:0:0:80ff:fffe', 'Teredo with loopback client (127.0.0.1 inverted)'],
    // not addresses at all
    ['', 'empty'],
    ['localhost', 'a name'],
    ['999.1.1.1', 'out of range'],
    ['1.2.3.4.5', 'too many parts'],
    [':::1', 'bad IPv6'],
  ])('%s is not public (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it('accepts Teredo only when both embedded addresses are public', () => {
    // server 8.8.8.8, client 1.1.1.1 (stored inverted: fefe:fefe)
    expect(isPublicAddress('2001:0:808:808::fefe:fefe')).toBe(true);
  });
});
