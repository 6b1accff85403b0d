/**
 * What a page shows against what a reader gets. In shown output `…` stands for any text, and a
 * placeholder with a prefix (`acct_…`, `popk_test_…`) also names the value it stood for: a later
 * command of the page (or of a page read after it) that writes the same placeholder gets that value,
 * as a reader pastes what was printed.
 */

/** Placeholder text (`acct_…`) → the value it last stood for. */
export type Bindings = Map<string, string>;

const PLACEHOLDER = /([A-Za-z0-9_]*)…/g;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether `actual` (trailing white space aside) is what `shown` says; when it is, the values its
 * placeholders stood for (the first occurrence of each).
 */
export function matchShown(shown: string, actual: string): Bindings | undefined {
  const names: string[] = [];
  let pattern = '';
  let last = 0;
  for (const match of shown.matchAll(PLACEHOLDER)) {
    pattern += escape(shown.slice(last, match.index));
    pattern += `(${escape(match[1])}[^]*?)`;
    names.push(match[1] ? match[0] : '');
    last = match.index! + match[0].length;
  }
  pattern += escape(shown.slice(last));
  const found = new RegExp(`^${pattern}$`).exec(actual.trimEnd());
  if (!found) return undefined;
  const bindings: Bindings = new Map();
  names.forEach((name, index) => {
    if (name && !bindings.has(name)) bindings.set(name, found[index + 1]);
  });
  return bindings;
}

/** A command with each placeholder replaced by the value it stood for; an unbound one is the page's mistake. */
export function fillPlaceholders(command: string, bindings: Bindings): string {
  return command.replace(PLACEHOLDER, (placeholder: string, prefix: string) => {
    const value = bindings.get(placeholder);
    if (value !== undefined) return value;
    throw new Error(
      prefix
        ? `${placeholder} is used before any example showed one`
        : 'a bare … in a command: write what goes there (a shell variable, or a placeholder such as acct_… that an earlier example shows)',
    );
  });
}

/** JSON as one line without the white space between its tokens (strings kept as written), so a pretty page and a compact answer compare. */
export function compactJson(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"|\s+/g, (token) => (token.startsWith('"') ? token : ''));
}

/** The page's addresses (its API, its receiver) → the run's own, in commands and in shown output alike. */
export function readdress(text: string, addresses: ReadonlyArray<[string, string]>): string {
  return addresses.reduce((result, [page, run]) => result.split(page).join(run), text);
}
