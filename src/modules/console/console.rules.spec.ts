import {
  consoleCookie,
  hashToken,
  linkMinutes,
  linkRefusal,
  looksLikeLinkToken,
  newLinkToken,
  parseFilterList,
  readCookie,
  sameSecret,
  securePublicUrl,
  signInUrl,
} from './console.rules';
import { escapeHtml, html } from './views/html';

describe('console rules', () => {
  it('mints distinct, prefixed link tokens of 256 bits, stored as 32-byte hashes', () => {
    const a = newLinkToken();
    expect(a).toMatch(/^popcl_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(newLinkToken());
    expect(looksLikeLinkToken(a)).toBe(true);
    expect(hashToken(a)).toHaveLength(32);
    expect(hashToken(a).equals(hashToken(a))).toBe(true);
  });

  it.each([undefined, '', 'popcl_short', `popk_${'a'.repeat(43)}`, `popcl_${'a'.repeat(42)}!`, 42])(
    'refuses %p as a link token',
    (value) => {
      expect(looksLikeLinkToken(value)).toBe(false);
    },
  );

  it('links live 15 minutes by default, 1 to 60 whole minutes', () => {
    expect(linkMinutes(undefined)).toBe(15);
    expect(linkMinutes(60)).toBe(60);
    for (const bad of [0, 61, 1.5, -1]) expect(() => linkMinutes(bad)).toThrow(RangeError);
  });

  it('says why a link cannot start a session', () => {
    const now = new Date('2026-11-27T10:00:00Z');
    const later = new Date('2026-11-27T10:05:00Z');
    expect(linkRefusal(undefined, now)).toBe('invalid');
    expect(linkRefusal({ expiresAt: later, usedAt: now }, now)).toBe('used');
    expect(linkRefusal({ expiresAt: now, usedAt: null }, now)).toBe('expired');
    expect(linkRefusal({ expiresAt: later, usedAt: null }, now)).toBeNull();
  });

  it('builds the sign-in URL on the public address', () => {
    expect(signInUrl('https://app.example.com', 'popcl_x')).toBe('https://app.example.com/console/signin?token=popcl_x');
  });

  it('sets cookies HttpOnly, SameSite=Strict, on /console only, Secure on https', () => {
    expect(consoleCookie('c', 'v', { secure: false })).toBe('c=v; Path=/console; HttpOnly; SameSite=Strict');
    expect(consoleCookie('c', '', { secure: true, maxAgeSeconds: 0 })).toBe(
      'c=; Path=/console; HttpOnly; SameSite=Strict; Secure; Max-Age=0',
    );
    expect(securePublicUrl({ publicBaseUrl: 'https://x.example' })).toBe(true);
    expect(securePublicUrl({ publicBaseUrl: 'http://localhost:3000' })).toBe(false);
  });

  it('reads one cookie of a Cookie header', () => {
    expect(readCookie('a=1; pop_console=abc; b=2', 'pop_console')).toBe('abc');
    expect(readCookie('pop_console_signin=x', 'pop_console')).toBeUndefined();
    expect(readCookie(undefined, 'pop_console')).toBeUndefined();
  });

  it('compares secrets whatever their length or type', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abd', 'abc')).toBe(false);
    expect(sameSecret('ab', 'abc')).toBe(false);
    expect(sameSecret(undefined, 'abc')).toBe(false);
    expect(sameSecret(['abc'], 'abc')).toBe(false);
  });

  it('reads event filters separated by commas, spaces or lines', () => {
    expect(parseFilterList(' property.*, booking.create\njobRequest.created  ,, ')).toEqual([
      'property.*',
      'booking.create',
      'jobRequest.created',
    ]);
    expect(parseFilterList('')).toEqual([]);
  });
});

describe('html templates', () => {
  it('escape every value, render nested templates and lists as they are, and drop null, undefined and false', () => {
    const evil = `<script>alert("x")</script>&'`;
    expect(html`<p title="${evil}">${evil}</p>`.value).toBe(`<p title="${escapeHtml(evil)}">${escapeHtml(evil)}</p>`);
    expect(escapeHtml(evil)).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;');
    const items = ['a', 'b'].map((x) => html`<li>${x}</li>`);
    // (Prettier lays out html`` templates, so whitespace is left out of the comparison.)
    expect(
      html`<ul>
        ${items}
      </ul>`.value.replace(/\s+/g, ''),
    ).toBe('<ul><li>a</li><li>b</li></ul>');
    expect(html`${null}${undefined}${false}${0}`.value).toBe('0');
  });
});
