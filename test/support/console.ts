import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { ConsoleSessionsService } from '../../src/modules/console/console-sessions.service';
import { TestApp } from './app';

/** The account console over HTTP (docs/console.md): links, sign-in, form posts with the session's CSRF token. */

export function mintLink(t: TestApp, accountId: string, minutes?: number) {
  return t.app.get(ConsoleSessionsService).mintLink(accountId, minutes);
}

/** The path and query of a link (links name PUBLIC_BASE_URL; tests call the app on its own port). */
export function linkPath(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

export function tokenOf(url: string): string {
  return new URL(url).searchParams.get('token')!;
}

/** The value of a hidden (or any) input named `name` in a page. */
export function inputValue(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}"[^>]*?\\svalue="([^"]*)"`).exec(html)?.[1];
}

/** `name=value` of the Set-Cookie naming `name`, and the whole header. */
export function setCookie(res: request.Response, name: string): { pair: string; header: string } | undefined {
  const headers = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const header = headers.find((h) => h.startsWith(`${name}=`));
  return header ? { pair: header.split(';')[0], header } : undefined;
}

/**
 * The hidden fields of the page's form that posts to `action` (the session's CSRF token and the form's
 * one-post token), as a browser sends them with what was typed.
 */
export function formFields(html: string, action: string): Record<string, string> {
  const escaped = action.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const form = new RegExp(`<form[^>]*action="${escaped}"[^>]*>([\\s\\S]*?)</form>`).exec(html);
  if (!form) throw new Error(`no form posting to ${action} on the page`);
  return Object.fromEntries(
    [...form[1].matchAll(/<input\s+type="hidden"\s+name="([^"]+)"\s+value="([^"]*)"/g)].map((m) => [m[1], m[2]] as [string, string]),
  );
}

export interface ConsoleClient {
  cookie: string;
  csrf: string;
  get(path: string): request.Test;
  /**
   * A form post carrying the session's CSRF token (unless `csrf` says otherwise) and a fresh one-post form
   * token, as a freshly loaded page's form does (unless `form` has its own `_form`).
   */
  post(path: string, form?: Record<string, string>, csrf?: string | null): request.Test;
  /** The hidden fields of the form posting to `action` on the page at `pagePath` (read it, as a browser does). */
  formOn(pagePath: string, action: string): Promise<Record<string, string>>;
}

/** Opens the link's page and posts its form, as the page's script does: the sign-in (on the app, or on a running API by its URL). */
export async function exchangeLink(t: TestApp | string, url: string): Promise<request.Response> {
  const server = typeof t === 'string' ? t : t.app.getHttpServer();
  const landing = await request(server).get(linkPath(url)).expect(200);
  const nonce = setCookie(landing, 'pop_console_signin')!.pair;
  return request(server)
    .post('/console/signin')
    .set('Cookie', nonce)
    .type('form')
    .send({ token: inputValue(landing.text, 'token')!, nonce: inputValue(landing.text, 'nonce')! });
}

export function consoleClient(t: TestApp, cookie: string, csrf: string): ConsoleClient {
  const server = t.app.getHttpServer();
  return {
    cookie,
    csrf,
    get: (path) => request(server).get(path).set('Cookie', cookie),
    post: (path, form = {}, token = csrf) =>
      request(server)
        .post(path)
        .set('Cookie', cookie)
        .type('form')
        .send({ _form: randomBytes(16).toString('base64url'), ...form, ...(token === null ? {} : { _csrf: token }) }),
    formOn: async (pagePath, action) => formFields((await request(server).get(pagePath).set('Cookie', cookie).expect(200)).text, action),
  };
}

/** A signed-in console session of the account. */
export async function consoleSignIn(t: TestApp, accountId: string): Promise<ConsoleClient> {
  const signedIn = await exchangeLink(t, (await mintLink(t, accountId)).url);
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}: ${signedIn.text}`);
  const cookie = setCookie(signedIn, 'pop_console')!.pair;
  const home = await request(t.app.getHttpServer()).get('/console').set('Cookie', cookie).expect(200);
  return consoleClient(t, cookie, inputValue(home.text, '_csrf')!);
}
