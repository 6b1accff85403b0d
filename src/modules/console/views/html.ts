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

/** A table that scrolls sideways on a narrow screen: focusable, named by its section's heading (`labelledBy`). */
export function scrollTable(labelledBy: string, columns: string[], rows: Html[]): Html {
  return html`<div class="scroll" tabindex="0" role="region" aria-labelledby="${labelledBy}">
    <table>
      <thead>
        <tr>
          ${columns.map((column) => html`<th scope="col">${column}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}
