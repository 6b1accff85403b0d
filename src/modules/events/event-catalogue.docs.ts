import { EVENT_CATALOGUE, EVENT_NAMES, EventName } from './event-catalogue';

/**
 * docs/events.md's event tables, generated from the catalogue: each table sits between
 * `<!-- events-catalogue: property propertyPicture -->` and `<!-- /events-catalogue -->` and lists the
 * events of those name prefixes, in catalogue order. `npm run docs:events` rewrites them;
 * event-catalogue.docs.spec.ts fails while the file says anything else.
 */
const SECTION = /<!-- events-catalogue: ([\w ]+) -->\n[\s\S]*?<!-- \/events-catalogue -->/g;

const prefixOf = (name: EventName) => name.slice(0, name.indexOf('.'));

function table(prefixes: string[]): string {
  const rows = EVENT_NAMES.filter((name) => prefixes.includes(prefixOf(name))).map((name) => {
    const { when, results, payload } = EVENT_CATALOGUE[name];
    return `| \`${name}\` | ${when} | ${results} | \`${payload}\` |`;
  });
  return ['| event | when | `results` | schema |', '|---|---|---|---|', ...rows].join('\n');
}

/** The markdown with every marked table regenerated from the catalogue. */
export function renderEventTables(markdown: string): string {
  return markdown.replace(
    SECTION,
    (_section, list: string) => `<!-- events-catalogue: ${list} -->\n${table(list.trim().split(/\s+/))}\n<!-- /events-catalogue -->`,
  );
}

/** The name prefixes the marked tables cover, each as often as a table lists it. */
export function documentedPrefixes(markdown: string): string[] {
  return [...markdown.matchAll(SECTION)].flatMap((match) => match[1].trim().split(/\s+/));
}

export const CATALOGUED_PREFIXES = [...new Set(EVENT_NAMES.map(prefixOf))];
