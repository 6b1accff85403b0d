import { html, Html } from './html';
import { formTokens, Frame, page } from './layout';

/** The confirmation asked before clearing the sandbox (docs/test-mode.md "Clearing it"). */
export function resetConfirmPage(frame: Frame): Html {
  return page(
    frame,
    'keys',
    'Clear test data?',
    html`<p>
        This deletes everything made in test mode: the sandbox's properties, pictures, checklists, bookings, reminders, job requests and
        their comments, calendar feeds, webhook subscriptions and their deliveries, events and idempotency records. It cannot be undone.
      </p>
      <p>Live data is not touched, and test keys keep working (on an empty sandbox).</p>
      <form method="post" action="/console/sandbox/reset" class="inline">
        ${formTokens(frame)}<button type="submit" class="danger">Clear test data</button>
      </form>
      <a class="button secondary" href="/console/keys">Cancel</a>`,
  );
}

/** What clearing deleted (the CLI's sandbox:reset prints it per table). */
export function resetDonePage(frame: Frame, rows: number): Html {
  return page(
    frame,
    'keys',
    'Test data cleared',
    html`<p id="reset-result">
        ${rows ? `${rows} ${rows === 1 ? 'row' : 'rows'} of test data deleted.` : 'The sandbox was empty: nothing to delete.'} Live data and
        the keys are unchanged.
      </p>
      <p><a href="/console/keys">Back to the keys</a></p>`,
  );
}
