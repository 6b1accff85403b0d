import type { WebhookDeliveryResponse } from '../../webhooks/subscriptions/webhook-delivery.response';
import type { WebhookSubscriptionResponse } from '../../webhooks/subscriptions/webhook-subscription.response';
import { copyBox, html, Html, id, when } from './html';
import { actionButton, Frame, Notice, page } from './layout';
import { DELIVERY_STATUS_WORDS, deliveryStateIn, subscriptionState } from './statuses';
import { schemesText } from './webhooks.view';

/** The delivery log's filters, as the page's query string has them. */
export interface LogFilter {
  status?: WebhookDeliveryResponse['status'];
  eventName?: string;
}

export interface SubscriptionPage {
  subscription: WebhookSubscriptionResponse;
  deliveries: WebhookDeliveryResponse[];
  nextCursor: string | null;
  /** Whether this page is past the first one (it links back to the newest). */
  paged: boolean;
  filter: LogFilter;
  eventNames: readonly string[];
}

/** `?status=…&eventName=…` (and the cursor), for the log's links. */
export function logQuery(filter: LogFilter, cursor?: string): string {
  const params = new URLSearchParams();
  if (filter.status) params.set('status', filter.status);
  if (filter.eventName) params.set('eventName', filter.eventName);
  if (cursor) params.set('cursor', cursor);
  const query = params.toString();
  return query ? `?${query}` : '';
}

function lastAttempt(d: WebhookDeliveryResponse): Html {
  const last = d.attempts.at(-1);
  if (!last) return html``;
  const answer = last.responseCode !== null ? `HTTP ${last.responseCode}` : `no answer${last.errorClass ? ` (${last.errorClass})` : ''}`;
  return html` · last attempt ${when(last.at)}: ${answer}${last.durationMs !== null ? ` in ${last.durationMs} ms` : ''}`;
}

function logEntry(base: string, d: WebhookDeliveryResponse): Html {
  return html`<li class="card delivery" data-delivery="${d.id}">
    <p>
      <a href="${base}/deliveries/${d.id}"><strong>${d.eventName}</strong><span class="visually-hidden"> delivery ${d.id}</span></a
      >${d.test ? html` <span class="badge">test</span>` : ''} · ${deliveryStateIn(base, d)} · ${id(d.id)}
    </p>
    <p class="muted">Created ${when(d.createdAt)} · ${d.attemptCount} attempt(s)${lastAttempt(d)}</p>
  </li>`;
}

function logSection(base: string, data: SubscriptionPage): Html {
  const { filter } = data;
  const filtered = filter.status !== undefined || filter.eventName !== undefined;
  return html`<section aria-labelledby="log">
    <h2 id="log">Delivery log</h2>
    <form method="get" action="${base}" class="row filters" aria-label="Filter the delivery log">
      <label for="status">Status</label>
      <select id="status" name="status">
        <option value="">All statuses</option>
        ${Object.entries(DELIVERY_STATUS_WORDS).map(
          ([value, words]) => html`<option value="${value}" ${value === filter.status ? html`selected` : ''}>${words}</option>`,
        )}
      </select>
      <label for="eventName">Event</label>
      <select id="eventName" name="eventName">
        <option value="">All events</option>
        ${data.eventNames.map((name) => html`<option ${name === filter.eventName ? html`selected` : ''}>${name}</option>`)}
      </select>
      <button type="submit">Filter</button>
      ${filtered ? html`<a href="${base}">Clear filters</a>` : ''}
    </form>
    ${
      data.deliveries.length
        ? html`<ul class="cards">
            ${data.deliveries.map((d) => logEntry(base, d))}
          </ul>`
        : html`<p>${filtered ? 'No deliveries match these filters.' : 'No deliveries yet: send a test event from the settings page.'}</p>`
    }
    <p class="pager">
      ${data.paged ? html`<a href="${base}${logQuery(filter)}">Newest deliveries</a>` : ''}
      ${data.nextCursor ? html`<a href="${base}${logQuery(filter, data.nextCursor)}">Older deliveries</a>` : ''}
    </p>
  </section>`;
}

/** An ordered subscription's order: how many wait and, when the page lists one of them, the head they wait for (its retry or end lets them go). */
function orderFact(base: string, sub: WebhookSubscriptionResponse, deliveries: WebhookDeliveryResponse[]): Html {
  const head = deliveries.find((d) => d.waitingFor)?.waitingFor;
  const waiting = sub.waitingDeliveries ?? 0;
  return html`one at a time, in the feed's order; ${waiting}
  waiting${head && waiting ? html` for <a href="${base}/deliveries/${head}">${id(head)}</a>, whose retry or end lets them go` : ''}`;
}

/**
 * Receiver authentication (issue 42), as reads show it: header names (never a value), the OAuth2 token
 * endpoint and client, the client certificate's subject and expiry; and, in words, the token endpoint's
 * last error when the newest deliveries listed carry one.
 */
function receiverAuthFacts(sub: WebhookSubscriptionResponse, deliveries: WebhookDeliveryResponse[]): Html {
  const tokenError = deliveries
    .flatMap((d) => d.attempts)
    .filter((a) => a.errorClass === 'tokenRequestFailed')
    .sort((a, b) => b.at.localeCompare(a.at))[0];
  return html`${
    sub.headers
      ? html`<dt>Custom headers</dt>
          <dd>${Object.keys(sub.headers).map((name) => html`<code>${name}</code> `)}(values are never shown)</dd>`
      : ''
  }
  ${
    sub.oauth2
      ? html`<dt>OAuth2 token</dt>
          <dd>
            client <code>${sub.oauth2.clientId}</code> at <span class="url">${sub.oauth2.tokenUrl}</span>${
              tokenError ? html`<br />last token endpoint error ${when(tokenError.at)}: ${tokenError.errorMessage ?? 'unknown'}` : ''
            }
          </dd>`
      : ''
  }
  ${
    sub.mtls
      ? html`<dt>Client certificate</dt>
          <dd>${sub.mtls.certificateSubject}, expires ${when(sub.mtls.certificateExpiresAt)}</dd>`
      : ''
  }`;
}

/** One subscription: what it is (state, filters, schemes, the v1a public key), then its delivery log. Settings are a page of their own. */
export function subscriptionPage(frame: Frame, data: SubscriptionPage, flash?: Notice): Html {
  const sub = data.subscription;
  const base = `/console/webhooks/${sub.id}`;
  return page(
    frame,
    'webhooks',
    'Subscription',
    html`<p><span class="url">${sub.url}</span></p>
      <p>${subscriptionState(sub)} · ${id(sub.id)} · created ${when(sub.createdAt)}</p>
      <dl class="facts">
        <dt>Event filters</dt>
        <dd>${sub.eventFilters.map((f) => html`<code>${f}</code> `)}</dd>
        <dt>Retries</dt>
        <dd>${sub.maxRetries}</dd>
        <dt>Signed with</dt>
        <dd>${schemesText(sub)}</dd>
        ${
          sub.rateLimitPerSecond !== null
            ? html`<dt>Pacing</dt>
                <dd>at most ${sub.rateLimitPerSecond} attempts per second</dd>`
            : ''
        }
        ${
          sub.ordered
            ? html`<dt>Ordered</dt>
                <dd>${orderFact(base, sub, data.deliveries)}</dd>`
            : ''
        }
        ${receiverAuthFacts(sub, data.deliveries)}
      </dl>
      ${sub.publicKey ? copyBox('public-key', 'v1a public key (not a secret: your endpoint verifies v1a signatures with it)', sub.publicKey, { button: 'Copy public key' }) : ''}
      <div class="actions">
        ${actionButton(
          frame,
          `${base}/enabled`,
          sub.enabled ? 'Disable' : 'Enable',
          { enabled: sub.enabled ? 'false' : 'true' },
          sub.enabled ? 'secondary' : '',
        )}
        <a class="button secondary" href="${base}/settings">Settings, test event and replay</a>
      </div>
      ${logSection(base, data)}`,
    flash,
  );
}
