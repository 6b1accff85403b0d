import type { EventResponse } from '../../events/event.response';
import { html, Html, when } from './html';
import { Frame, page } from './layout';

export interface EventsPage {
  events: EventResponse[];
  eventName?: string;
  eventNames: readonly string[];
  nextCursor: string | null;
}

/** The account's event feed, newest first, filterable by name, each payload readable. */
export function eventsPage(frame: Frame, data: EventsPage): Html {
  const filter = data.eventName ? `&eventName=${encodeURIComponent(data.eventName)}` : '';
  return page(
    frame,
    'events',
    'Events',
    html`<p>
        The account's events, newest first (kept 90 days). API clients read the same feed oldest first at <code>GET /v1/events</code>.
      </p>
      <form method="get" action="/console/events" class="row">
        <label for="eventName">Event name</label>
        <select id="eventName" name="eventName">
          <option value="">All events</option>
          ${data.eventNames.map((name) => html`<option${name === data.eventName ? html` selected` : ''}>${name}</option>`)}
        </select>
        <button type="submit">Filter</button>
      </form>
      ${
        data.events.length
          ? html`<ul class="cards">
                ${data.events.map(
                  (e) =>
                    html`<li class="card event">
                      <details>
                        <summary><strong>${e.eventName}</strong> · ${when(e.createdAt)} · <code>${e.id}</code></summary>
                        <p class="muted">Request <code>${e.apiRequestId}</code> · client request <code>${e.clientRequestId}</code></p>
                        <pre class="payload">${JSON.stringify(e.results, null, 2)}</pre>
                      </details>
                    </li>`,
                )}
              </ul>
              ${data.nextCursor ? html`<p><a href="/console/events?before=${data.nextCursor}${filter}">Older events</a></p>` : ''}`
          : html`<p>No events${data.eventName ? html` named <code>${data.eventName}</code>` : ''}.</p>`
      }`,
  );
}
