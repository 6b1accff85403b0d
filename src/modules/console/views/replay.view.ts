import type { WebhookReplayResponse } from '../../webhooks/replay/webhook-replay.response';
import { html, Html, id, when } from './html';
import { Frame, page } from './layout';
import { replayState } from './statuses';

/** How far a replay got: a bar while it has deliveries to send, words when its window held none. */
function progress(replay: WebhookReplayResponse): Html {
  if (replay.total === 0)
    return html`<p data-replay-empty>
      The window held no events to send to this subscription${replay.onlyFailed ? ' (none failed or went missing)' : ''}, so nothing was
      replayed.
    </p>`;
  return html`<progress max="${replay.total}" value="${replay.done}" aria-label="Replay progress">
      ${replay.done} of ${replay.total}
    </progress>
    ${replay.done} of ${replay.total} sent`;
}

export function replayPage(frame: Frame, replay: WebhookReplayResponse): Html {
  const running = replay.status === 'running';
  return page(
    frame,
    'webhooks',
    'Replay',
    html`<p>${id(replay.id)} of <a href="/console/webhooks/${replay.webhookId}">subscription ${replay.webhookId}</a></p>
      <dl class="facts">
        <dt>Status</dt>
        <dd data-replay-status="${replay.status}">${replayState(replay.status)}</dd>
        <dt>Window</dt>
        <dd>${when(replay.since)} to ${when(replay.until)}</dd>
        <dt>Filters</dt>
        <dd>${replay.eventFilters.map((f) => html`<code>${f}</code> `)}${replay.onlyFailed ? ' (only failed or missing)' : ''}</dd>
        <dt>Progress</dt>
        <dd>${progress(replay)}</dd>
        ${
          replay.total > 0
            ? html`<dt>Delivered</dt>
                <dd>${replay.delivered}</dd>
                <dt>Failed</dt>
                <dd>${replay.failed}</dd>
                <dt>Skipped</dt>
                <dd>${replay.skipped}</dd>`
            : ''
        }
        <dt>Finished</dt>
        <dd>${replay.finishedAt ? when(replay.finishedAt) : 'not yet'}</dd>
      </dl>
      ${running ? html`<p class="muted" data-refresh="2">This page refreshes every 2 seconds while the replay runs. <a href="">Refresh now</a></p>` : ''}`,
  );
}
