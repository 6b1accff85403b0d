import { REDACTED, receiverAuthView, receiverHeadersIssue, tokenReuseMs, withReceiverAuth } from './receiver-auth.rules';

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
