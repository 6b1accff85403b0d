import type { WebhookSubscriptionResponse } from '../../webhooks/subscriptions/webhook-subscription.response';
import { SUBSCRIPTION_LIMITS } from '../../webhooks/subscriptions/webhook-subscription.rules';
import type { SubscriptionForm } from '../console-webhook-forms';
import { html, Html } from './html';
import { formTokens, Frame, Notice, page } from './layout';
import { subscriptionState } from './statuses';

/** The schemes a subscription signs with, in words. */
export function schemesText(sub: Pick<WebhookSubscriptionResponse, 'signatureSchemes'>): string {
  return sub.signatureSchemes?.includes('v1a') ? 'v1 (HMAC) and v1a (ed25519)' : 'v1 (HMAC)';
}

/**
 * The fields of the add and settings forms: URL, filters, the signature schemes (v1 always; v1a at will),
 * ordered, and, when adding, the retries (fixed once added, as the API has it).
 */
export function subscriptionFields(frame: Pick<Frame, 'allowPrivateUrls'>, form: SubscriptionForm, create: boolean): Html {
  const L = SUBSCRIPTION_LIMITS;
  // What the URL rules let through here (docs/webhooks.md, "URL rules"): a development server may allow local receivers.
  const rule = frame.allowPrivateUrls
    ? 'https on a public domain name; this server also takes http and private or loopback addresses, such as http://127.0.0.1:4000/ (ALLOW_PRIVATE_URLS, development only)'
    : 'https, a public domain name';
  return html`<label for="url">Endpoint URL <span class="muted">(${rule})</span></label>
    <input id="url" name="url" type="url" required value="${form.url ?? ''}" autocomplete="off" />
    <fieldset>
      <legend>RabbitMQ destination <span class="muted">(an amqps URL only)</span></legend>
      <p class="muted">
        With an endpoint URL such as <span class="url">amqps://user:password@host:5671/vhost</span>, each delivery is published to this
        exchange, confirmed by the broker; the URL is shown without its
        password${create ? '' : html`, and left as shown it keeps the password`}.
      </p>
      <label for="rabbitmqExchange">Exchange <span class="muted">(empty: the default exchange, which needs a routing key)</span></label>
      <input id="rabbitmqExchange" name="rabbitmqExchange" value="${form.rabbitmqExchange ?? ''}" autocomplete="off" />
      <label for="rabbitmqRoutingKey">Routing key <span class="muted">(empty: each event's name, such as booking.create)</span></label>
      <input id="rabbitmqRoutingKey" name="rabbitmqRoutingKey" value="${form.rabbitmqRoutingKey ?? ''}" autocomplete="off" />
    </fieldset>
    <label for="eventFilters"
      >Event filters
      <span class="muted"
        >(names such as property.create, prefixes such as jobRequest.*, or * for all; separated by commas or
        spaces${create ? '' : '; they replace the list'})</span
      ></label
    >
    <input id="eventFilters" name="eventFilters" required value="${form.eventFilters ?? '*'}" autocomplete="off" />
    ${
      create
        ? html`<label for="maxRetries"
              >Retries <span class="muted">(${L.maxRetriesMin} to ${L.maxRetriesMax}; fixed once added)</span></label
            >
            <input
              id="maxRetries"
              name="maxRetries"
              type="number"
              min="${L.maxRetriesMin}"
              max="${L.maxRetriesMax}"
              value="${form.maxRetries ?? String(L.maxRetriesDefault)}"
            />`
        : ''
    }
    <fieldset>
      <legend>Signature schemes</legend>
      <p class="muted">Every delivery carries v1: an HMAC-SHA256 signature made with the subscription's signing secret.</p>
      <div class="check">
        <input id="v1a" name="v1a" type="checkbox" value="on" ${form.v1a ? html`checked` : ''} />
        <label for="v1a"
          >Also sign with v1a (ed25519, Standard Webhooks): your endpoint verifies with the subscription's public key and needs no
          secret${create ? '' : html`; turning it off drops the key pair, turning it on again makes a new one`}</label
        >
      </div>
    </fieldset>
    <div class="check">
      <input id="ordered" name="ordered" type="checkbox" value="on" ${form.ordered ? html`checked` : ''} />
      <label for="ordered"
        >Ordered: one delivery at a time, in the events feed's order, each after the one before it succeeded or failed for good (slower;
        test events and manual retries go outside the
        order)${create ? '' : html`; a change applies to the deliveries not attempted yet`}</label
      >
    </div>`;
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
                      <p>
                        ${subscriptionState(sub)}
                        <span class="muted">Filters:</span> ${sub.eventFilters.map((f) => html`<code>${f}</code> `)}
                      </p>
                      <p class="muted">Signed with ${schemesText(sub)}</p>
                    </li>`,
                )}
              </ul>`
            : html`<p>No subscriptions yet.</p>`
        }
      </section>
      <section aria-labelledby="new-sub">
        <h2 id="new-sub">Add a subscription</h2>
        <form method="post" action="/console/webhooks" class="stack">
          ${formTokens(frame)} ${subscriptionFields(frame, form, true)}
          <button type="submit">Add subscription</button>
        </form>
      </section>`,
    flash,
  );
}
