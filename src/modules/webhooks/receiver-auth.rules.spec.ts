import { randomBytes } from 'node:crypto';
import { KEY_BYTES, parseKeyring } from '../../config/keyring';
import { SecretBox } from '../../platform/secrets/secret-box';
import {
  REDACTED,
  receiverAuthContext,
  receiverAuthView,
  receiverHeadersIssue,
  resealedReceiverAuth,
  tokenReuseMs,
  withReceiverAuth,
} from './receiver-auth.rules';

describe('receiverHeadersIssue', () => {
  it('accepts names and values at their bounds', () => {
    expect(receiverHeadersIssue({ ['A'.repeat(64)]: ' ~'.repeat(512), x_1: '' })).toBeNull();
  });

  it.each([
    [{ 'a b': 'v' }, '"a b"'],
    [{ ['A'.repeat(65)]: 'v' }, 'longer than 64'],
    [{ X: 'v'.repeat(1025) }, 'longer than 1024'],
    [{ X: 'a\nb' }, 'printable ASCII'],
    [{ X: 'a', x: 'b' }, 'twice'],
    [{ 'webhook-id': 'x' }, 'set by the platform'],
    [{ 'Keep-Alive': 'x' }, 'set by the platform'],
    [Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`h${i}`, 'v'])), 'at most 10'],
    [null, 'must be an object'],
  ])('refuses %j naming why', (headers, why) => {
    expect(receiverHeadersIssue(headers)).toContain(why);
  });
});

describe('receiverAuthView', () => {
  it('shows header names with redacted values and oauth2 without its secret', () => {
    const view = receiverAuthView({
      headers: { names: ['X-Key'], sealed: 'v1.sealed' },
      oauth2: { tokenUrl: 'https://idp/token', clientId: 'c', authMethod: 'clientSecretBasic', clientSecret: 'v1.sealed' },
    });
    expect(view).toEqual({
      headers: { 'X-Key': REDACTED },
      oauth2: { tokenUrl: 'https://idp/token', clientId: 'c', authMethod: 'clientSecretBasic' },
    });
  });

  it('shows nothing when nothing is set', () => {
    expect(receiverAuthView(null)).toEqual({});
  });
});

describe('withReceiverAuth', () => {
  const headers = { names: ['X'], sealed: 's' };
  it('replaces given options, drops null ones, keeps the rest, and stores null when empty', () => {
    expect(withReceiverAuth({ headers }, { oauth2: undefined })).toEqual({ headers });
    expect(withReceiverAuth({ headers }, { headers: null })).toBeNull();
  });
});

describe('tokenReuseMs', () => {
  it('is expires_in minus the smaller of 10% and 60 s; an hour without one', () => {
    expect(tokenReuseMs(3600)).toBe(3_540_000);
    expect(tokenReuseMs(100)).toBe(90_000);
    expect(tokenReuseMs('1')).toBe(900);
    expect(tokenReuseMs(undefined)).toBe(3_600_000);
    expect(tokenReuseMs(-5)).toBe(3_600_000);
  });
});

describe('resealedReceiverAuth (key rotation upkeep)', () => {
  const k1 = `k1:${randomBytes(KEY_BYTES).toString('base64')}`;
  const k2 = `k2:${randomBytes(KEY_BYTES).toString('base64')}`;
  const old = new SecretBox({ secretsKeyring: parseKeyring(k1) });
  const rotated = new SecretBox({ secretsKeyring: parseKeyring(`${k2},${k1}`) });
  const reseal = (sealed: string, context: string) =>
    rotated.needsResealing(sealed) ? rotated.seal(rotated.open(sealed, context), context) : sealed;

  it('seals every part again with the current key, each in its own context; nothing to do once done', () => {
    const id = 'sub_1';
    const stored = {
      headers: { names: ['X'], sealed: old.seal('{"X":"v"}', receiverAuthContext(id, 'headers')) },
      oauth2: {
        tokenUrl: 'https://idp/token',
        clientId: 'c',
        authMethod: 'clientSecretBasic' as const,
        clientSecret: old.seal('s', receiverAuthContext(id, 'oauth2')),
      },
    };
    const next = resealedReceiverAuth(stored, id, reseal)!;
    expect(next.headers!.sealed.startsWith('v1.k2.')).toBe(true);
    expect(rotated.open(next.headers!.sealed, receiverAuthContext(id, 'headers'))).toBe('{"X":"v"}');
    expect(rotated.open(next.oauth2!.clientSecret, receiverAuthContext(id, 'oauth2'))).toBe('s');
    expect(next.oauth2!.tokenUrl).toBe('https://idp/token');
    expect(resealedReceiverAuth(next, id, reseal)).toBeUndefined();
  });
});
