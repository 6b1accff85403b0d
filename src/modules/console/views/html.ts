/**
 * Typed HTML templates: `html\`<p>${text}</p>\`` escapes every value unless it is itself Html (a nested
 * template); arrays render each item; null, undefined and false render nothing. Views are plain functions
 * from typed data to Html, so the compiler checks what each page is given.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Renderable = Html | string | number | boolean | null | undefined | Renderable[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function render(value: Renderable): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Renderable[]): Html {
  let out = strings[0];
  values.forEach((value, i) => (out += render(value) + strings[i + 1]));
  return new Html(out);
}

/** A date as the pages show it: UTC to the second, in a <time> element. */
export function when(date: Date | string | null | undefined): Html {
  if (!date) return html`<span class="muted">never</span>`;
  const iso = new Date(date).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

/** An id (`sub_01…`): kept on one line, never broken mid-token. */
export function id(value: string): Html {
  return html`<code class="id">${value}</code>`;
}

/**
 * A table that reads on a narrow screen too: past 40rem wide each row is a stacked card, each cell with
 * its column's name (data-label) before it; no sideways scroll. Named by its section's heading.
 */
export function stackedTable(labelledBy: string, columns: readonly string[], rows: Renderable[][]): Html {
  // Explicit roles: CSS display changes on table parts make some browsers drop their table semantics.
  return html`<table class="stacked" role="table" aria-labelledby="${labelledBy}">
    <thead role="rowgroup">
      <tr role="row">
        ${columns.map((column) => html`<th role="columnheader" scope="col">${column}</th>`)}
      </tr>
    </thead>
    <tbody role="rowgroup">
      ${rows.map(
        (cells) =>
          html`<tr role="row">
            ${cells.map((cell, i) => html`<td role="cell" data-label="${columns[i]}">${cell}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/**
 * A value to copy, with its label and a Copy button (console.js copies the element's text). A secret is an
 * <output> marked data-secret (its name); other values are a focusable <pre>, line breaks kept.
 */
export function copyBox(domId: string, label: Renderable, value: string, options: { secret?: string; button?: string } = {}): Html {
  const shown = options.secret
    ? html`<output id="${domId}" class="secret" aria-labelledby="${domId}-label" data-secret="${options.secret}">${value}</output>`
    : html`<pre id="${domId}" class="copyable" tabindex="0" aria-labelledby="${domId}-label">${value}</pre>`;
  return html`<div class="copy-box">
    <p class="copy-label" id="${domId}-label">${label}</p>
    ${shown}
    <p>
      <button type="button" class="secondary" data-copy="${domId}">${options.button ?? 'Copy'}</button>
      <span class="muted" data-copy-status role="status"></span>
    </p>
  </div>`;
}
