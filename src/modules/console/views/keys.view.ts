import type { KeySummary } from '../../auth/accounts.service';
import type { AuditEntry } from '../console-audit.repository';
import type { NoteValues } from '../console-forms.service';
import { CONSOLE_LIMITS } from '../console.rules';
import { copyBox, html, Html, id, Renderable, stackedTable, when } from './html';
import { formTokens, Frame, Notice, page } from './layout';

const AUDIT_WORDS: Record<AuditEntry['action'], string> = { 'key.created': 'Key created', 'key.revoked': 'Key revoked' };

/** Each kind of key in words, as its badge says it: a new kind of key must be named here (the typecheck says so). */
const KIND_WORDS: Record<KeySummary['kind'], { badge: string; title: string }> = {
  platform: { badge: 'Platform', title: 'Calls the Platform API' },
  legacy: { badge: 'Legacy', title: 'Calls the Platform API and the legacy API' },
};

const KEY_COLUMNS = ['Label', 'Key id', 'Ends with', 'Created', 'Last used', 'Kind', 'Status'] as const;

function auditRow(entry: AuditEntry): Renderable[] {
  return [when(entry.at), AUDIT_WORDS[entry.action], html`${id(entry.apiKeyId)} ${entry.label ?? ''}`, id(entry.sessionId)];
}

function keyRow(key: KeySummary): Renderable[] {
  const kind = KIND_WORDS[key.kind];
  return [
    key.label ?? html`<span class="muted">(no label)</span>`,
    id(key.apiKeyId),
    key.lastFour ? html`<code>…${key.lastFour}</code>` : html`<span class="muted">unknown</span>`,
    when(key.createdAt),
    when(key.lastUsedAt),
    key.test
      ? html`<span class="badge test">Test</span> <span class="muted">Acts on the sandbox (test mode)</span>`
      : html`<span class="badge">${kind.badge}</span> <span class="muted">${kind.title}</span>`,
    key.revokedAt
      ? html`<span class="state off"><span aria-hidden="true">✕</span> Revoked</span> ${when(key.revokedAt)}`
      : html`<span class="state ok"><span aria-hidden="true">●</span> Active</span>
          <a class="button danger" href="/console/keys/${key.apiKeyId}/revoke"
            >Revoke<span class="visually-hidden"> ${key.label ?? key.apiKeyId}</span></a
          >`,
  ];
}

export interface KeysPage {
  keys: KeySummary[];
  audit: AuditEntry[];
  label?: string;
}

/** Spec 5.4-5.6: the account's keys, creating a Platform key, revoking, the audit list. */
export function keysPage(frame: Frame, data: KeysPage, flash?: Notice): Html {
  return page(
    frame,
    'keys',
    'API and AI assistants',
    html`<p>
        Keys created here authenticate the Platform API (<code>/v1</code>) only; send one in the <code>x-api-key</code> header. A key is
        shown once, when it is created. Legacy keys, issued before self-serve keys, also call the legacy API until it retires on 2027-04-07;
        they are listed here but cannot be created.
      </p>
      <section aria-labelledby="create-key">
        <h2 id="create-key">Create a Platform key</h2>
        ${
          frame.apiAccess
            ? html`<form method="post" action="/console/keys" class="stack">
                ${formTokens(frame)}
                <label for="label">Label <span class="muted">(what the key is for, e.g. "Channel manager" or "AI assistant")</span></label>
                <input
                  id="label"
                  name="label"
                  required
                  maxlength="${CONSOLE_LIMITS.keyLabelMax}"
                  value="${data.label ?? ''}"
                  autocomplete="off"
                />
                <label class="check"
                  ><input type="checkbox" name="test" value="true" ${frame.testMode ? html`checked` : ''} /> Test key
                  <span class="muted"
                    >(<code>popk_test_…</code>: acts on the sandbox, never on live data;
                    <a href="/llms/test-mode.md">how test mode works</a>)</span
                  ></label
                >
                <button type="submit">Create key</button>
              </form>`
            : html`<p>Keys can be created once the subscription is active on a plan that includes the API.</p>`
        }
      </section>
      <section aria-labelledby="keys">
        <h2 id="keys">Keys</h2>
        ${data.keys.length ? stackedTable('keys', KEY_COLUMNS, data.keys.map(keyRow)) : html`<p>No keys yet.</p>`}
      </section>
      <section aria-labelledby="sandbox">
        <h2 id="sandbox">Test data</h2>
        <p>
          Test keys act on this account's sandbox: its own properties, bookings, job requests, webhooks and events. Clearing it deletes all
          of them; live data and the keys stay.
        </p>
        <a class="button danger" href="/console/sandbox/reset">Clear test data…</a>
      </section>
      <section aria-labelledby="audit">
        <h2 id="audit">Audit list</h2>
        ${
          data.audit.length
            ? stackedTable('audit', ['When', 'What', 'Key', 'From session'], data.audit.map(auditRow))
            : html`<p>Key creations and revocations made in the console are listed here.</p>`
        }
      </section>`,
    flash,
  );
}

/** The one time a key is shown (from its note: a reload finds it gone, keyShownPage). */
export function keyCreatedPage(frame: Frame, created: NoteValues['apiKey']): Html {
  return page(
    frame,
    'keys',
    'Key created',
    html`<div class="secret-box">
        <p><strong>Copy this key now: it will not be shown again.</strong> Store it as a secret; it is stored here only as a hash.</p>
        <p>Label: ${created.label}. Key id: ${id(created.apiKeyId)}.${created.test ? html` <span class="badge test">Test</span>` : ''}</p>
        ${copyBox('secret', 'API key', created.apiKey, { secret: 'apiKey', button: 'Copy key' })}
      </div>
      <p><a href="/console/keys">Back to the keys</a></p>`,
  );
}

/** What the key's page says once the key was shown (a reload, a repeated form): nothing is created again. */
export function keyShownPage(frame: Frame): Html {
  return page(
    frame,
    'keys',
    'Key already shown',
    html`<p>
        A new key is shown once: this one was shown already, and nothing was created again. It is listed on the keys page by its label and
        last four characters; if it was not copied, revoke it there and create another.
      </p>
      <p><a href="/console/keys">Back to the keys</a></p>`,
  );
}

/** The confirmation asked before revoking. */
export function revokeConfirmPage(frame: Frame, key: KeySummary): Html {
  return page(
    frame,
    'keys',
    'Revoke this key?',
    html`<p>
        Revoking
        <strong>${key.label ?? key.apiKeyId}</strong>
        (${id(key.apiKeyId)}${key.lastFour ? html`, ending <code>${key.lastFour}</code>` : ''}) is immediate and cannot be undone: the very
        next request made with it is refused (401).
      </p>
      <form method="post" action="/console/keys/${key.apiKeyId}/revoke" class="inline">
        ${formTokens(frame)}<button type="submit" class="danger">Revoke key</button>
      </form>
      <a class="button secondary" href="/console/keys">Cancel</a>`,
  );
}
