import type { FieldIssue } from '../../../platform/errors/domain-error';
import { html, Html } from './html';
import { bare, Frame, Notice, page, Section } from './layout';

/**
 * The link's landing page: opening it uses nothing (a mail scanner that fetches links cannot burn it); its
 * form posts the token (the script submits it at once and takes the token out of the address bar).
 */
export function signInPage(assets: Frame['assets'], token: string, nonce: string): Html {
  return bare(
    assets,
    'Open the account console',
    html`<form method="post" action="/console/signin" data-autosubmit>
      <input type="hidden" name="token" value="${token}" />
      <input type="hidden" name="nonce" value="${nonce}" />
      <p>Signing you in…</p>
      <button type="submit">Continue to the console</button>
    </form>`,
  );
}

const LINK_REFUSALS = {
  invalid: 'This sign-in link is not valid. Check that it was copied whole, or open the console again from the web app.',
  used: 'This sign-in link has already been used: each link opens the console once. Open the console again from the web app for a new one.',
  expired: 'This sign-in link has expired. Open the console again from the web app for a new one.',
} as const;

/**
 * Outside production (a developer or a local operator runs the service) there is no web app to open the console
 * from: the way in is the admin CLI's link, said where a page sends people to the web app.
 */
function localWayIn(local: boolean): Html {
  return local
    ? html`<p>
        Running the service yourself, outside production? <code>npm run --silent cli -- console:link --account acct_…</code> prints a
        sign-in link (docs/console.md).
      </p>`
    : html``;
}

export function linkRefusedPage(assets: Frame['assets'], reason: keyof typeof LINK_REFUSALS, local: boolean): Html {
  return bare(
    assets,
    'Sign-in link refused',
    html`<p role="alert">${LINK_REFUSALS[reason]}</p>
      ${localWayIn(local)}`,
  );
}

const SIGNED_OUT = {
  signedOut: ['Signed out', 'You have signed out of the account console. Open the console again from the web app.'],
  ended: [
    'Your console session has ended',
    'Sessions end after 30 minutes without use, or 12 hours after sign-in. Open the console again from the web app.',
  ],
  never: ['Not signed in', 'The account console opens from a sign-in link: open it from the web app.'],
} as const;

/** No session: signed out here, ended (idle or too old), or never opened in this browser. */
export function signedOutPage(assets: Frame['assets'], why: keyof typeof SIGNED_OUT, local: boolean): Html {
  const [title, text] = SIGNED_OUT[why];
  return bare(
    assets,
    title,
    html`<p role="status">${text}</p>
      ${localWayIn(local)}`,
  );
}

/** An action refused: the error in words, on the section's page, with the way back. */
export function errorPage(
  frame: Frame | undefined,
  assets: Frame['assets'],
  section: Section,
  error: { status: number; title: string; detail: string; errors?: FieldIssue[] },
  back: string | undefined,
): Html {
  // Said once: the fields at fault, each with its message (the detail joins them), or the detail.
  const content = html`${
    error.errors?.length
      ? html`<p>Not accepted:</p>
          <ul>
            ${error.errors.map((e) => html`<li>${e.detail}</li>`)}
          </ul>`
      : html`<p>${error.detail}</p>`
  }
  ${back ? html`<p><a href="${back}">Back</a></p>` : ''}`;
  const flash: Notice = { kind: 'error', text: `${error.title} (${error.status})` };
  return frame ? page(frame, section, error.title, content, flash) : bare(assets, error.title, html`<div role="alert">${content}</div>`);
}
