import { createHash } from 'node:crypto';
import type { OAuth2Settings } from '../../receiver-auth.rules';

/**
 * Pure pieces of the OAuth2 client-credentials grant (RFC 6749 4.4) as attempts use it (issue 42): the
 * token request, and how its answer is read. The answer's body is never kept: only the token, or why
 * there is none.
 */

/** The token request's headers and form body: client_secret_basic (default) or client_secret_post. */
export function tokenRequest(settings: OAuth2Settings, clientSecret: string): { headers: Record<string, string>; body: string } {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (settings.scope !== undefined) form.set('scope', settings.scope);
  if (settings.audience !== undefined) form.set('audience', settings.audience);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (settings.authMethod === 'clientSecretPost') {
    form.set('client_id', settings.clientId);
    form.set('client_secret', clientSecret);
  } else {
    // RFC 6749 2.3.1: each part form-urlencoded before the Basic encoding.
    const user = `${formEncode(settings.clientId)}:${formEncode(clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(user, 'utf8').toString('base64')}`;
  }
  return { headers, body: form.toString() };
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** A token endpoint's 2xx answer read: the token and its `expires_in`, or why it is unusable. */
export function tokenFromAnswer(body: string): { accessToken: string; expiresIn: unknown } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { problem: 'the token endpoint answered without JSON' };
  }
  const answer = parsed as { access_token?: unknown; expires_in?: unknown } | null;
  const token = answer?.access_token;
  if (typeof token !== 'string' || token.length === 0 || !/^[\x21-\x7e]+$/.test(token)) {
    return { problem: 'the token endpoint answered without a usable access_token' };
  }
  return { accessToken: token, expiresIn: answer?.expires_in };
}

/**
 * What names one cached token: the subscription and a digest of its OAuth2 settings as stored (the
 * sealed secret differs at each write), so a PATCH of oauth2 starts with a new token, never the old one.
 */
export function tokenCacheName(subscriptionId: string, stored: OAuth2Settings & { clientSecret: string }): string {
  const digest = createHash('sha256').update(JSON.stringify(stored)).digest('base64url').slice(0, 22);
  return `${subscriptionId}:${digest}`;
}
