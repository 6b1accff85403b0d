import { newFormToken } from '../console.rules';
import { Html, html, Renderable } from './html';

export type Section = 'overview' | 'keys' | 'webhooks' | 'events';

/** What every signed-in page shows in its frame. */
export interface Frame {
  csrfToken: string;
  accountName: string;
  accountId: string;
  /** Whether the account may call the API now (spec 5.3): otherwise a notice on every page. */
  apiAccess: boolean;
  plan: string;
  subscriptionStatus: string;
  /** The session is in test mode: the data pages show the sandbox (docs/test-mode.md). */
  testMode: boolean;
  /** The page's path, where the mode switch comes back to. */
  path: string;
  assets: { css: string; js: string };
  /** This server lets webhooks reach http and private or loopback hosts (ALLOW_PRIVATE_URLS, development only): forms say so. */
  allowPrivateUrls: boolean;
}

const NAV: Array<[Section, string, string]> = [
  ['overview', 'Overview', '/console'],
  ['keys', 'API and AI assistants', '/console/keys'],
  ['webhooks', 'Webhooks', '/console/webhooks'],
  ['events', 'Events', '/console/events'],
];

function document(title: string, assets: Frame['assets'], body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · Account console</title>
        <link rel="stylesheet" href="${assets.css}" />
        <script src="${assets.js}" defer></script>
      </head>
      <body>
        ${body}
      </body>
    </html>`;
}

/**
 * The hidden fields every state-changing form carries: the session's CSRF token, and a fresh one-post
 * token (a repeated post of this form does nothing: ConsoleFormsService.once).
 */
export function formTokens(frame: Pick<Frame, 'csrfToken'>): Html {
  const csrf = html`<input type="hidden" name="_csrf" value="${frame.csrfToken}" />`;
  const once = html`<input type="hidden" name="_form" value="${newFormToken()}" />`;
  return html`${csrf}${once}`;
}

/** A one-button form (POST) with its tokens: enable, rotate, retry... */
export function actionButton(frame: Frame, action: string, label: Renderable, fields: Record<string, string> = {}, kind = ''): Html {
  return html`<form method="post" action="${action}" class="inline">
    ${formTokens(frame)}${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}<button
      type="submit"
      class="${kind}"
    >
      ${label}
    </button>
  </form>`;
}

export interface Notice {
  kind: 'ok' | 'error';
  text: Renderable;
}

export function notice(n: Notice | undefined): Html {
  if (!n) return html``;
  return n.kind === 'error'
    ? html`<div class="notice error" role="alert">${n.text}</div>`
    : html`<div class="notice ok" role="status">${n.text}</div>`;
}

/**
 * A signed-in page: skip link, header with the account and navigation, the session's controls (sign-out;
 * what concerns the whole session, such as a mode switch, goes beside it), the inactive-account notice.
 */
export function page(frame: Frame, section: Section, title: string, content: Renderable, flash?: Notice): Html {
  return document(
    title,
    frame.assets,
    html`<a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <div class="brand">
          Account console <span class="muted">${frame.accountName} (<span class="id">${frame.accountId}</span>)</span>
        </div>
        <nav aria-label="Console">
          <ul>
            ${NAV.map(
              ([id, label, href]) => html`<li><a href="${href}" ${id === section ? html` aria-current="page"` : ''}>${label}</a></li>`,
            )}
          </ul>
        </nav>
        <div class="session">
          <span class="mode ${frame.testMode ? 'test' : 'live'}" id="mode">${frame.testMode ? 'Test mode' : 'Live mode'}</span>
          <form method="post" action="/console/mode" class="inline">
            ${formTokens(frame)}<input type="hidden" name="mode" value="${frame.testMode ? 'live' : 'test'}" /><input
              type="hidden"
              name="back"
              value="${frame.path}"
            /><button type="submit" class="link">${frame.testMode ? 'Switch to live mode' : 'Switch to test mode'}</button>
          </form>
          <form method="post" action="/console/signout" class="inline">
            ${formTokens(frame)}<button type="submit" class="link">Sign out</button>
          </form>
        </div>
      </header>
      <main id="main" tabindex="-1">
        ${
          frame.apiAccess
            ? ''
            : html`<div class="notice warn" role="status">
                <strong>API access is paused.</strong> This account's subscription is ${frame.subscriptionStatus} on the ${frame.plan} plan:
                API calls answer 403 subscription_inactive (spec 5.3), webhooks and events are not available here, and new keys cannot be
                created. You can still revoke keys.
              </div>`
        }
        ${
          frame.testMode
            ? html`<div class="notice test" role="status">
                <strong>Test mode.</strong> Webhooks and events here are the sandbox's: the data test keys act on, apart from the live data.
                Keys are the account's, live and test alike.
              </div>`
            : ''
        }
        ${notice(flash)}
        <h1>${title}</h1>
        ${content}
      </main>`,
  );
}

/** A page outside a session (sign-in, refused link, signed out). */
export function bare(assets: Frame['assets'], title: string, content: Renderable): Html {
  return document(
    title,
    assets,
    html`<main id="main" class="bare">
      <h1>${title}</h1>
      ${content}
    </main>`,
  );
}
