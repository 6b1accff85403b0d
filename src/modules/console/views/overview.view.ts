import { html, Html, when } from './html';
import { Frame, page } from './layout';

export interface OverviewPage {
  sessionId: string;
  signedInAt: Date;
  /** Keys not revoked, live (legacy ones too) and test (docs/test-mode.md): a test key never touches live data. */
  liveKeys: number;
  testKeys: number;
  subscriptions: number | null;
}

export function overviewPage(frame: Frame, data: OverviewPage): Html {
  return page(
    frame,
    'overview',
    'Overview',
    html`<dl class="facts">
      <dt>Account</dt>
      <dd>${frame.accountName} <code>${frame.accountId}</code></dd>
      <dt>Plan</dt>
      <dd>${frame.plan}</dd>
      <dt>Subscription</dt>
      <dd>${frame.subscriptionStatus}${frame.apiAccess ? ' (API access on)' : ' (API access paused)'}</dd>
      <dt>Live API keys</dt>
      <dd><a href="/console/keys">${data.liveKeys}</a></dd>
      <dt>Test API keys</dt>
      <dd><a href="/console/keys">${data.testKeys}</a></dd>
      <dt>Webhook subscriptions</dt>
      <dd>
        ${data.subscriptions === null ? 'not available while API access is paused' : html`<a href="/console/webhooks">${data.subscriptions}</a>`}
      </dd>
      <dt>This session</dt>
      <dd>
        <code>${data.sessionId}</code>, signed in ${when(data.signedInAt)}; it ends after 30 minutes without use, or when you sign out
      </dd>
    </dl>`,
  );
}
