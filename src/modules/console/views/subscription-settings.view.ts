import type { WebhookSubscriptionResponse } from '../../webhooks/subscriptions/webhook-subscription.response';
import type { SubscriptionForm } from '../console-webhook-forms';
import { html, Html, id } from './html';
import { actionButton, formTokens, Frame, Notice, page } from './layout';
import { subscriptionFields } from './webhooks.view';

export interface SettingsPage {
  subscription: WebhookSubscriptionResponse;
  eventNames: readonly string[];
  /** The edit form as typed, after a refusal. */
  form?: SubscriptionForm;
}

/** A subscription's settings: edit, send a test event, replay a window, rotate the secret, delete. */
export function settingsPage(frame: Frame, data: SettingsPage, flash?: Notice): Html {
  const sub = data.subscription;
  const base = `/console/webhooks/${sub.id}`;
  const form: SubscriptionForm = data.form ?? {
    url: sub.url,
    eventFilters: sub.eventFilters.join(', '),
    v1a: sub.signatureSchemes?.includes('v1a') ?? false,
    ordered: sub.ordered,
    rabbitmqExchange: sub.rabbitmq?.exchange,
    rabbitmqRoutingKey: sub.rabbitmq?.routingKey,
  };
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
  return page(
    frame,
    'webhooks',
    'Subscription settings',
    html`<p><span class="url">${sub.url}</span> ${id(sub.id)}</p>
      <p><a href="${base}">Back to the subscription and its delivery log</a></p>
      <section aria-labelledby="edit">
        <h2 id="edit">Edit</h2>
        <form method="post" action="${base}" class="stack">
          ${formTokens(frame)} ${subscriptionFields(frame, form, false)}
          <button type="submit">Save changes</button>
        </form>
      </section>
      <section aria-labelledby="test">
        <h2 id="test">Send a test event</h2>
        <form method="post" action="${base}/test" class="stack">
          ${formTokens(frame)}
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
          ${formTokens(frame)}
          <label for="since">Since (UTC)</label>
          <input id="since" name="since" type="datetime-local" required value="${hourAgo}" />
          <label for="until">Until (UTC, empty for now)</label>
          <input id="until" name="until" type="datetime-local" />
          <div class="check">
            <input id="onlyFailed" name="onlyFailed" type="checkbox" value="true" />
            <label for="onlyFailed">Only events whose delivery failed or never happened</label>
          </div>
          <button type="submit">Start replay</button>
        </form>
      </section>
      <section aria-labelledby="rotate">
        <h2 id="rotate">Signing secret</h2>
        <p>
          A new secret is shown once; the current one keeps signing beside it for 24 hours, so your endpoint can switch without losing a
          delivery.${sub.publicKey ? ' The v1a key pair rotates with it.' : ''}
        </p>
        ${actionButton(frame, `${base}/rotate`, 'Rotate signing secret', {}, 'secondary')}
      </section>
      <section aria-labelledby="delete">
        <h2 id="delete">Delete</h2>
        <p>Deliveries stop at once; the delivery log and replays go with the subscription. The events stay in the events feed.</p>
        <a class="button danger" href="${base}/delete">Delete subscription…</a>
      </section>`,
    flash,
  );
}

/** The confirmation asked before deleting. */
export function deleteConfirmPage(frame: Frame, sub: WebhookSubscriptionResponse): Html {
  const base = `/console/webhooks/${sub.id}`;
  return page(
    frame,
    'webhooks',
    'Delete this subscription?',
    html`<p>
        Deleting the subscription to <strong class="url">${sub.url}</strong> (${id(sub.id)}) is immediate and cannot be undone: no delivery
        is sent to it any more, pending retries included, and its delivery log and replays are deleted with it. Disabling it instead keeps
        everything and stops deliveries until it is enabled again.
      </p>
      <form method="post" action="${base}/delete" class="inline">
        ${formTokens(frame)}<button type="submit" class="danger">Delete subscription</button>
      </form>
      <a class="button secondary" href="${base}">Cancel</a>`,
  );
}
