import { tokenCacheName, tokenFromAnswer, tokenRequest } from './receiver-token.rules';

describe('tokenRequest', () => {
  const settings = { tokenUrl: 'https://idp/token', clientId: 'id:1', scope: 'a b', authMethod: 'clientSecretBasic' as const };
  it('client_secret_basic: form-encoded credentials in Basic, the grant and scope in the form', () => {
    const { headers, body } = tokenRequest(settings, 's&+');
    expect(Object.fromEntries(new URLSearchParams(body))).toEqual({ grant_type: 'client_credentials', scope: 'a b' });
    expect(Buffer.from(headers.authorization.slice(6), 'base64').toString()).toBe('id%3A1:s%26%2B');
  });
  it('client_secret_post: the credentials as form fields, no Authorization', () => {
    const { headers, body } = tokenRequest({ ...settings, authMethod: 'clientSecretPost', audience: 'x' }, 's');
    expect(headers).not.toHaveProperty('authorization');
    expect(Object.fromEntries(new URLSearchParams(body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'a b',
      audience: 'x',
      client_id: 'id:1',
      client_secret: 's',
    });
  });
});

describe('tokenFromAnswer', () => {
  it('reads access_token and expires_in, and refuses an answer without a usable token', () => {
    expect(tokenFromAnswer('{"access_token":"t","expires_in":60}')).toEqual({ accessToken: 't', expiresIn: 60 });
    expect(tokenFromAnswer('{"token_type":"Bearer"}')).toHaveProperty('problem');
    expect(tokenFromAnswer('{"access_token":"a b"}')).toHaveProperty('problem');
    expect(tokenFromAnswer('<html>')).toHaveProperty('problem');
  });
});

describe('tokenCacheName', () => {
  it('changes with the stored settings (a PATCH starts with a new token)', () => {
    const stored = { tokenUrl: 'https://idp/token', clientId: 'c', authMethod: 'clientSecretBasic' as const, clientSecret: 'v1.a' };
    expect(tokenCacheName('sub_1', stored)).toMatch(/^sub_1:/);
    expect(tokenCacheName('sub_1', stored)).not.toBe(tokenCacheName('sub_1', { ...stored, clientSecret: 'v1.b' }));
  });
});
