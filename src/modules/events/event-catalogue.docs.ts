import type { EventDescription } from '../../platform/modules/module-declaration';

/**
 * docs/events.md's event tables, generated from the modules' declared events: each table sits between
 * `<!-- events-catalogue: property propertyPicture -->` and `<!-- /events-catalogue -->` and lists the
 * events of those name prefixes, in declaration order. `npm run docs:events` rewrites them;
 * event-catalogue.docs.spec.ts fails while the file says anything else.
 */
const SECTION = /<!-- events-catalogue: ([\w ]+) -->\n[\s\S]*?<!-- \/events-catalogue -->/g;

type Events = Readonly<Record<string, EventDescription>>;

const prefixOf = (name: string) => name.slice(0, name.indexOf('.'));

function table(events: Events, prefixes: string[]): string {
  const rows = Object.entries(events)
    .filter(([name]) => prefixes.includes(prefixOf(name)))
    .map(([name, { when, results, payload }]) => `| \`${name}\` | ${when} | ${results} | \`${payload.name}\` |`);
  return ['| event | when | `results` | schema |', '|---|---|---|---|', ...rows].join('\n');
}

/** The markdown with every marked table regenerated from the events. */
export function renderEventTables(markdown: string, events: Events): string {
  return markdown.replace(
    SECTION,
    (_section, list: string) =>
      `<!-- events-catalogue: ${list} -->\n${table(events, list.trim().split(/\s+/))}\n<!-- /events-catalogue -->`,
  );
}

/** The name prefixes the marked tables cover, each as often as a table lists it. */
export function documentedPrefixes(markdown: string): string[] {
  return [...markdown.matchAll(SECTION)].flatMap((match) => match[1].trim().split(/\s+/));
}

export const cataloguedPrefixes = (events: Events) => [...new Set(Object.keys(events).map(prefixOf))];
