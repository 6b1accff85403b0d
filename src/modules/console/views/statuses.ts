import { AUTO_DISABLED_REASON, GONE_DISABLED_REASON } from '../../webhooks/subscriptions/webhook-subscription.rules';
import type { WebhookDeliveryResponse } from '../../webhooks/subscriptions/webhook-delivery.response';
import type { WebhookSubscriptionResponse } from '../../webhooks/subscriptions/webhook-subscription.response';
import type { WebhookReplayResponse } from '../../webhooks/replay/webhook-replay.response';
import { html, Html, id, when } from './html';

/**
 * Statuses in words, each with a mark and a tone: the colour is never the only cue (WCAG 1.4.1), and a
 * status the API adds must be worded here (the records are keyed by the API's own unions).
 */
type Tone = 'ok' | 'warn' | 'bad';
type DeliveryStatus = WebhookDeliveryResponse['status'];
type ReplayStatus = WebhookReplayResponse['status'];

function state(tone: Tone, mark: string, words: string): Html {
  return html`<span class="state ${tone}"><span aria-hidden="true">${mark}</span> ${words}</span>`;
}

/** The delivery statuses as the log's filter names them. */
export const DELIVERY_STATUS_WORDS: Record<DeliveryStatus, string> = {
  delivered: 'Delivered',
  pending: 'Pending or retrying',
  failed_permanent: 'Failed, no retries left',
};

export function deliveryState(delivery: Pick<WebhookDeliveryResponse, 'status' | 'attemptCount' | 'nextRetryAt'>): Html {
  switch (delivery.status) {
    case 'delivered':
      return state('ok', '✓', 'Delivered');
    case 'failed_permanent':
      return state('bad', '✕', 'Failed, no retries left');
    case 'pending':
      return delivery.attemptCount === 0
        ? state('warn', '…', 'Pending: not sent yet')
        : html`${state('warn', '↻', 'Failed, will retry')}${delivery.nextRetryAt ? html` <span class="muted">next at ${when(delivery.nextRetryAt)}</span>` : ''}`;
  }
}

/**
 * A delivery of an ordered subscription waiting its turn (`waitingFor`, docs/webhooks.md "Ordered endpoints"):
 * what it waits for, linked, rather than "not sent yet". `base` is the subscription's console path.
 */
export function waitingState(base: string, head: string): Html {
  return html`${state('warn', '⏸', 'Waiting for')} <a href="${base}/deliveries/${head}">${id(head)}</a>`;
}

/** A delivery's state on the console, its turn in an order when it waits for one. */
export function deliveryStateIn(base: string, delivery: Parameters<typeof deliveryState>[0] & { waitingFor?: string }): Html {
  return delivery.waitingFor ? waitingState(base, delivery.waitingFor) : deliveryState(delivery);
}

const DISABLED_REASONS: Record<string, string> = {
  [AUTO_DISABLED_REASON]: 'turned off after repeated delivery failures',
  [GONE_DISABLED_REASON]: 'turned off: the endpoint answered 410 Gone',
};

export function subscriptionState(sub: Pick<WebhookSubscriptionResponse, 'enabled' | 'disabledReason'>): Html {
  if (sub.enabled) return state('ok', '●', 'Enabled');
  const reason = sub.disabledReason ? (DISABLED_REASONS[sub.disabledReason] ?? sub.disabledReason) : undefined;
  return html`${state('bad', '○', 'Disabled')}${reason ? html` <span class="muted">(${reason})</span>` : ''}`;
}

const REPLAY_STATES: Record<ReplayStatus, [Tone, string, string]> = {
  running: ['warn', '↻', 'Running'],
  completed: ['ok', '✓', 'Completed'],
  stopped: ['bad', '■', 'Stopped'],
};

export function replayState(status: ReplayStatus): Html {
  return state(...REPLAY_STATES[status]);
}
