import type { WebhookDeliveryResponse } from '../../webhooks/subscriptions/webhook-delivery.response';
import type { WebhookSubscriptionResponse } from '../../webhooks/subscriptions/webhook-subscription.response';
import type { WebhookReplayResponse } from '../../webhooks/replay/webhook-replay.response';
import { html, Html, when } from './html';
import { actionButton, csrf, Frame, Notice, page } from './layout';

/** Values a subscription form shows again after an error, as typed. */
export interface SubscriptionForm {
  url?: string;
  eventFilters?: string;
  maxRetries?: string;
}

function state(sub: WebhookSubscriptionResponse): Html {
  if (sub.enabled) return html`<span class="badge ok">Enabled</span>`;
  return html`<span class="badge off">Disabled</span>${sub.disabledReason ? html` <span class="muted">${sub.disabledReason}</span>` : ''}`;
}

/** The webhook portal's list: every subscription and the form to add one. */
export function webhooksPage(
  frame: Frame,
  subscriptions: WebhookSubscriptionResponse[],
  form: SubscriptionForm = {},
  flash?: Notice,
): Html {
  return page(
    frame,
    'webhooks',
    'Webhooks',
    html`<p>
        Each subscription receives the events its filters match, signed with its own secret (Standard Webhooks). Missed something? Every
        event stays in the <a href="/console/events">events feed</a> for 90 days, and a subscription's page replays a window of it.
      </p>
      <section aria-labelledby="subs">
        <h2 id="subs">Subscriptions</h2>
        ${
          subscriptions.length
            ? html`<ul class="cards">
                ${subscriptions.map(
                  (sub) =>
                    html`<li class="card">
                      <p><a href="/console/webhooks/${sub.id}" class="url">${sub.url}</a></p>
                      <p>${state(sub)} <span class="muted">Filters:</span> ${sub.eventFilters.map((f) => html`<code>${f}</code> `)}</p>
                    </li>`,
                )}
              </ul>`
            : html`<p>No subscriptions yet.</p>`
        }
      </section>
      <section aria-labelledby="new-sub">
        <h2 id="new-sub">Add a subscription</h2>
        <form method="post" action="/console/webhooks" class="stack">
          ${csrf(frame)}
          <label for="url">Endpoint URL <span class="muted">(https, a public domain name)</span></label>
          <input id="url" name="url" type="url" required value="${form.url ?? ''}" autocomplete="off" />
          <label for="eventFilters"
            >Event filters
            <span class="muted"
              >(names such as property.create, prefixes such as jobRequest.*, or * for all; separated by commas or spaces)</span
            ></label
          >
          <input id="eventFilters" name="eventFilters" required value="${form.eventFilters ?? '*'}" autocomplete="off" />
          <label for="maxRetries">Retries <span class="muted">(0 to 10)</span></label>
          <input id="maxRetries" name="maxRetries" type="number" min="0" max="10" value="${form.maxRetries ?? '5'}" />
          <button type="submit">Add subscription</button>
        </form>
      </section>`,
    flash,
  );
}

/** The one time a signing secret is shown (creation or rotation). */
export function secretShownPage(frame: Frame, subscriptionId: string, title: string, secret: string, note: string): Html {
  return page(
    frame,
    'webhooks',
    title,
    html`<div class="secret-box">
        <p><strong>Copy the signing secret now: it will not be shown again.</strong> ${note}</p>
        <p><label for="secret">Signing secret</label></p>
        <p><output id="secret" class="secret" data-secret>${secret}</output></p>
        <p><button type="button" data-copy="secret">Copy secret</button> <span class="muted" data-copy-status role="status"></span></p>
      </div>
      <p><a href="/console/webhooks/${subscriptionId}">Go to the subscription</a></p>`,
  );
}

function attemptRows(delivery: WebhookDeliveryResponse): Html {
  if (!delivery.attempts.length) return html`<p class="muted">No attempt yet.</p>`;
  return html`<ol class="attempts">
    ${delivery.attempts.map(
      (a) =>
        html`<li>
          <p>
            ${when(a.at)}:
            ${a.responseCode !== null ? html`HTTP <strong>${a.responseCode}</strong>` : html`<strong>no answer</strong>`}${a.errorClass ? html` · error class <code>${a.errorClass}</code>` : ''}${a.durationMs !== null ? html` · ${a.durationMs} ms` : ''}
          </p>
          ${a.timings ? html`<p class="muted">DNS ${a.timings.dnsMs ?? '–'} ms · connect ${a.timings.connectMs ?? '–'} ms · TLS ${a.timings.tlsMs ?? '–'} ms · first byte ${a.timings.firstByteMs ?? '–'} ms · total ${a.timings.totalMs} ms</p>` : ''}
          ${a.errorMessage ? html`<p>Error: ${a.errorMessage}</p>` : ''}
          ${a.responseSnippet ? html`<pre class="snippet">${a.responseSnippet}</pre>` : ''}
        </li>`,
    )}
  </ol>`;
}

export interface SubscriptionPage {
  subscription: WebhookSubscriptionResponse;
  deliveries: WebhookDeliveryResponse[];
  nextCursor: string | null;
  eventNames: readonly string[];
  form?: SubscriptionForm;
}

/** One subscription: edit, enable/disable, rotate, test, replay, and its delivery log with each attempt. */
export function subscriptionPage(frame: Frame, data: SubscriptionPage, flash?: Notice): Html {
  const sub = data.subscription;
  const base = `/console/webhooks/${sub.id}`;
  const form = data.form ?? {};
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
  return page(
    frame,
    'webhooks',
    'Subscription',
    html`<p><span class="url">${sub.url}</span></p>
      <p>${state(sub)} · <code>${sub.id}</code> · ${sub.maxRetries} retries · created ${when(sub.createdAt)}</p>
      <div class="actions">
        ${actionButton(frame, `${base}/enabled`, sub.enabled ? 'Disable' : 'Enable', { enabled: sub.enabled ? 'false' : 'true' }, sub.enabled ? 'secondary' : '')}
        ${actionButton(frame, `${base}/rotate`, 'Rotate signing secret', {}, 'secondary')}
      </div>
      <section aria-labelledby="edit">
        <h2 id="edit">Edit</h2>
        <form method="post" action="${base}" class="stack">
          ${csrf(frame)}
          <label for="url">Endpoint URL</label>
          <input id="url" name="url" type="url" required value="${form.url ?? sub.url}" autocomplete="off" />
          <label for="eventFilters">Event filters <span class="muted">(replace the list)</span></label>
          <input
            id="eventFilters"
            name="eventFilters"
            required
            value="${form.eventFilters ?? sub.eventFilters.join(', ')}"
            autocomplete="off"
          />
          <button type="submit">Save changes</button>
        </form>
      </section>
      <section aria-labelledby="test">
        <h2 id="test">Send a test event</h2>
        <form method="post" action="${base}/test" class="stack">
          ${csrf(frame)}
          <label for="eventName">Event name</label>
          <select id="eventName" name="eventName">
            ${data.eventNames.map((name) => html`<option>${name}</option>`)}
          </select>
          <button type="submit">Send test</button>
        </form>
      </section>
      <section aria-labelledby="replay">
        <h2 id="replay">Replay a window</h2>
        <p>Sends the events created in the window again (filters: the subscription's), in order, at a bounded rate.</p>
        <form method="post" action="${base}/replay" class="stack">
          ${csrf(frame)}
          <label for="since">Since (UTC)</label>
          <input id="since" name="since" type="datetime-local" required value="${hourAgo}" />
          <label for="until">Until (UTC, empty for now)</label>
          <input id="until" name="until" type="datetime-local" />
          <div>
            <input id="onlyFailed" name="onlyFailed" type="checkbox" value="true" />
            <label for="onlyFailed">Only events whose delivery failed or never happened</label>
          </div>
          <button type="submit">Start replay</button>
        </form>
      </section>
      <section aria-labelledby="log">
        <h2 id="log">Delivery log</h2>
        <p><a href="${base}">Refresh</a></p>
        ${
          data.deliveries.length
            ? html`<ul class="cards">
                  ${data.deliveries.map(
                    (d) =>
                      html`<li class="card delivery" data-delivery="${d.id}">
                        <p>
                          <strong>${d.eventName}</strong>${d.test ? html` <span class="badge">test</span>` : ''} ·
                          <span class="status status-${d.status}">${d.status}</span> · <code>${d.id}</code>
                        </p>
                        <p class="muted">
                          Created ${when(d.createdAt)} · ${d.attemptCount}
                          attempt(s)${d.nextRetryAt ? html` · next retry ${when(d.nextRetryAt)}` : ''}
                        </p>
                        ${attemptRows(d)} ${actionButton(frame, `${base}/deliveries/${d.id}/retry`, 'Retry now', {}, 'secondary')}
                      </li>`,
                  )}
                </ul>
                ${data.nextCursor ? html`<p><a href="${base}?cursor=${data.nextCursor}">Older deliveries</a></p>` : ''}`
            : html`<p>No deliveries yet.</p>`
        }
      </section>`,
    flash,
  );
}

export function replayPage(frame: Frame, replay: WebhookReplayResponse): Html {
  const running = replay.status === 'running';
  return page(
    frame,
    'webhooks',
    'Replay',
    html`<p><code>${replay.id}</code> of <a href="/console/webhooks/${replay.webhookId}">subscription ${replay.webhookId}</a></p>
      <dl class="facts">
        <dt>Status</dt>
        <dd><strong data-replay-status>${replay.status}</strong></dd>
        <dt>Window</dt>
        <dd>${when(replay.since)} to ${when(replay.until)}</dd>
        <dt>Filters</dt>
        <dd>${replay.eventFilters.map((f) => html`<code>${f}</code> `)}${replay.onlyFailed ? ' (only failed or missing)' : ''}</dd>
        <dt>Progress</dt>
        <dd>
          <progress max="${Math.max(replay.total, 1)}" value="${replay.total ? replay.done : 1}" aria-label="Replay progress">
            ${replay.done} of ${replay.total}
          </progress>
          ${replay.done} of ${replay.total} sent
        </dd>
        <dt>Delivered</dt>
        <dd>${replay.delivered}</dd>
        <dt>Failed</dt>
        <dd>${replay.failed}</dd>
        <dt>Skipped</dt>
        <dd>${replay.skipped}</dd>
        <dt>Finished</dt>
        <dd>${replay.finishedAt ? when(replay.finishedAt) : 'not yet'}</dd>
      </dl>
      ${running ? html`<p class="muted" data-refresh="2">This page refreshes every 2 seconds while the replay runs. <a href="">Refresh now</a></p>` : ''}`,
  );
}
