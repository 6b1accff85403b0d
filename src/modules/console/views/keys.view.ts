import type { KeySummary } from '../../auth/accounts.service';
import type { AuditEntry } from '../console-audit.repository';
import { CONSOLE_LIMITS } from '../console.rules';
import { html, Html, scrollTable, when } from './html';
import { csrf, Frame, Notice, page } from './layout';

const AUDIT_WORDS: Record<AuditEntry['action'], string> = { 'key.created': 'Key created', 'key.revoked': 'Key revoked' };

function auditRow(entry: AuditEntry): Html {
  return html`<tr>
    <td>${when(entry.at)}</td>
    <td>${AUDIT_WORDS[entry.action]}</td>
    <td><code>${entry.apiKeyId}</code> ${entry.label ?? ''}</td>
    <td><code>${entry.sessionId}</code></td>
  </tr>`;
}

function keyRow(key: KeySummary): Html {
  return html`<tr>
    <td>${key.label ?? html`<span class="muted">(no label)</span>`}</td>
    <td><code>${key.apiKeyId}</code></td>
    <td>${key.lastFour ? html`<code>…${key.lastFour}</code>` : html`<span class="muted">unknown</span>`}</td>
    <td>${when(key.createdAt)}</td>
    <td>${when(key.lastUsedAt)}</td>
    <td>${key.kind === 'legacy' ? 'Legacy (Platform and legacy API)' : 'Platform'}</td>
    <td>
      ${
        key.revokedAt
          ? html`Revoked ${when(key.revokedAt)}`
          : html`<a class="button danger" href="/console/keys/${key.apiKeyId}/revoke"
              >Revoke<span class="visually-hidden"> ${key.label ?? key.apiKeyId}</span></a
            >`
      }
    </td>
  </tr>`;
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
                ${csrf(frame)}
                <label for="label">Label <span class="muted">(what the key is for, e.g. "Channel manager" or "AI assistant")</span></label>
                <input
                  id="label"
                  name="label"
                  required
                  maxlength="${CONSOLE_LIMITS.keyLabelMax}"
                  value="${data.label ?? ''}"
                  autocomplete="off"
                />
                <button type="submit">Create key</button>
              </form>`
            : html`<p>Keys can be created once the subscription is active on a plan that includes the API.</p>`
        }
      </section>
      <section aria-labelledby="keys">
        <h2 id="keys">Keys</h2>
        ${
          data.keys.length
            ? scrollTable('keys', ['Label', 'Key id', 'Ends with', 'Created', 'Last used', 'Kind', 'Status'], data.keys.map(keyRow))
            : html`<p>No keys yet.</p>`
        }
      </section>
      <section aria-labelledby="audit">
        <h2 id="audit">Audit list</h2>
        ${
          data.audit.length
            ? scrollTable('audit', ['When', 'What', 'Key', 'From session'], data.audit.map(auditRow))
            : html`<p>Key creations and revocations made in the console are listed here.</p>`
        }
      </section>`,
    flash,
  );
}

/** The one time a key is shown. */
export function keyCreatedPage(frame: Frame, created: { apiKeyId: string; apiKey: string; label: string }): Html {
  return page(
    frame,
    'keys',
    'Key created',
    html`<div class="secret-box">
        <p><strong>Copy this key now: it will not be shown again.</strong> Store it as a secret; it is stored here only as a hash.</p>
        <p>Label: ${created.label}. Key id: <code>${created.apiKeyId}</code>.</p>
        <p><label for="secret">API key</label></p>
        <p><output id="secret" class="secret" data-secret>${created.apiKey}</output></p>
        <p><button type="button" data-copy="secret">Copy key</button> <span class="muted" data-copy-status role="status"></span></p>
      </div>
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
        (<code>${key.apiKeyId}</code>${key.lastFour ? html`, ending <code>${key.lastFour}</code>` : ''}) is immediate and cannot be undone:
        the very next request made with it is refused (401).
      </p>
      <form method="post" action="/console/keys/${key.apiKeyId}/revoke" class="inline">
        ${csrf(frame)}<button type="submit" class="danger">Revoke key</button>
      </form>
      <a class="button secondary" href="/console/keys">Cancel</a>`,
  );
}
