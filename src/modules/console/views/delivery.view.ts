import type { AttemptRequest } from '../../webhooks/subscriptions/attempt-requests.rules';
import type { WebhookDeliveryResponse } from '../../webhooks/subscriptions/webhook-delivery.response';
import type { DeliveryWithRequests } from '../../webhooks/subscriptions/webhook-delivery-requests.service';
import { copyBox, html, Html, id, when } from './html';
import { actionButton, Frame, Notice, page } from './layout';
import { deliveryStateIn } from './statuses';

type Attempt = WebhookDeliveryResponse['attempts'][number];

function outcome(a: Attempt): Html {
  const answer = a.responseCode !== null ? html`HTTP <strong>${a.responseCode}</strong>` : html`<strong>no answer</strong>`;
  return html`${answer}${a.errorClass ? html` · error class <code>${a.errorClass}</code>` : ''}${a.durationMs !== null ? ` · ${a.durationMs} ms` : ''}`;
}

function timings(a: Attempt): Html {
  if (!a.timings) return html``;
  const t = a.timings;
  return html`<p class="muted">
    DNS ${t.dnsMs ?? '–'} ms · connect ${t.connectMs ?? '–'} ms · TLS ${t.tlsMs ?? '–'} ms · first byte ${t.firstByteMs ?? '–'} ms · total
    ${t.totalMs} ms
  </p>`;
}

function request(n: number, sent: AttemptRequest | null, eventGone: boolean): Html {
  if (!sent)
    return html`<p class="muted">
      ${eventGone ? 'The event is past the 90-day retention: what was sent can no longer be shown.' : 'Nothing was sent: the attempt stopped before the request.'}
    </p>`;
  if (sent.published) return published(n, sent, sent.published);
  return html`<details>
    <summary>Request headers and payload</summary>
    ${copyBox(`request-headers-${n}`, 'Request headers', sent.headers.map(([name, value]) => `${name}: ${value}`).join('\n'), {
      button: 'Copy headers',
    })}
    ${copyBox(`request-body-${n}`, 'Payload (the body as sent, byte for byte)', sent.body, { button: 'Copy payload' })}
  </details>`;
}

/** A RabbitMQ destination's attempt (issue 43): where it was published, its properties and headers, the body. */
function published(n: number, sent: AttemptRequest, to: NonNullable<AttemptRequest['published']>): Html {
  return html`<details>
    <summary>Message as published</summary>
    <p>Exchange <code>${to.exchange === '' ? '(default)' : to.exchange}</code> · routing key <code>${to.routingKey}</code></p>
    ${copyBox(`message-properties-${n}`, 'Properties', to.properties.map(([name, value]) => `${name}: ${value}`).join('\n'), {
      button: 'Copy properties',
    })}
    ${copyBox(`request-headers-${n}`, 'Message headers', sent.headers.map(([name, value]) => `${name}: ${value}`).join('\n'), {
      button: 'Copy headers',
    })}
    ${copyBox(`request-body-${n}`, 'Body (as published, byte for byte)', sent.body, { button: 'Copy body' })}
  </details>`;
}

function attemptItem(a: Attempt, n: number, sent: AttemptRequest | null, eventGone: boolean): Html {
  return html`<li class="card attempt">
    <h3>Attempt ${n + 1} <span class="muted">(webhook-retry-count ${n})</span></h3>
    <p>${when(a.at)}: ${outcome(a)}</p>
    ${timings(a)} ${a.errorMessage ? html`<p>Error: ${a.errorMessage}</p>` : ''} ${request(n, sent, eventGone)}
    ${a.responseSnippet ? copyBox(`response-${n}`, 'Response body (first 1 KB)', a.responseSnippet, { button: 'Copy response' }) : ''}
  </li>`;
}

/** One delivery: its state, each attempt with what it sent (headers, payload) and what came back; retry it. */
export function deliveryPage(frame: Frame, subscriptionId: string, data: DeliveryWithRequests, flash?: Notice): Html {
  const d = data.delivery;
  const base = `/console/webhooks/${subscriptionId}`;
  return page(
    frame,
    'webhooks',
    'Delivery',
    html`<p><a href="${base}">Back to the delivery log</a></p>
      <p>
        <strong>${d.eventName}</strong>${d.test ? html` <span class="badge">test</span>` : ''} · ${deliveryStateIn(base, d)} · ${id(d.id)}
      </p>
      ${
        d.waitingFor
          ? html`<p>
              <a href="${base}/deliveries/${d.waitingFor}">${id(d.waitingFor)}</a> is the head of this subscription's order: this delivery
              is sent once that one is delivered or fails for good. Retrying that one sends it again now.
            </p>`
          : ''
      }
      <p class="muted">
        Created ${when(d.createdAt)}${d.eventId ? html` · event ${id(d.eventId)}` : ''} · ${d.attemptCount} attempt(s). The
        <code>webhook-id</code> header is the delivery id on every attempt; signatures are not kept (each attempt signed its own bytes).
      </p>
      <div class="actions">${actionButton(frame, `${base}/deliveries/${d.id}/retry`, 'Retry now', {}, 'secondary')}</div>
      <h2>Attempts</h2>
      ${
        d.attempts.length
          ? html`<ol class="cards attempts">
              ${d.attempts.map((a, n) => attemptItem(a, n, data.requests[n], data.eventGone))}
            </ol>`
          : html`<p>No attempt yet.</p>`
      }`,
    flash,
  );
}
