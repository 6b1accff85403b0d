import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DECLARED } from '../modules';
import { cataloguedPrefixes, documentedPrefixes, renderEventTables } from './event-catalogue.docs';

const EVENTS = DECLARED.events;
const EVENT_NAMES = DECLARED.eventNames;

const DOCS = join(__dirname, '../../../docs');

/** The event tables stand in docs/events.md, or in the page of the module whose events they list. */
describe('the event tables of docs/ and the declared events', () => {
  const pages = readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => readFileSync(join(DOCS, name), 'utf8'));
  const markdown = pages.join('\n');

  it('lists every catalogued event once: each name prefix has exactly one table', () => {
    expect([...documentedPrefixes(markdown)].sort()).toEqual(cataloguedPrefixes(EVENTS).sort());
  });

  it('has the tables the catalogue generates (run `npm run docs:events` after changing the events a module declares)', () => {
    for (const page of pages) expect(page).toBe(renderEventTables(page, EVENTS));
  });

  it('names each event and its results schema in a table row', () => {
    const tables = [...markdown.matchAll(/<!-- events-catalogue: [\w ]+ -->\n([\s\S]*?)<!-- \/events-catalogue -->/g)].map((m) => m[1]);
    const rows = tables
      .join('\n')
      .split('\n')
      .filter((line) => /^\| `\w+\.\w+` \|/.test(line));
    const documented = rows.map((row) => {
      const cells = row.split(' | ');
      return [cells[0].slice(3, -1), cells[cells.length - 1].slice(1, -3)];
    });
    expect(documented.sort()).toEqual(EVENT_NAMES.map((name) => [name, EVENTS[name].payload.name]).sort());
  });
});

describe('the event catalogue', () => {
  it('has every event name the spec shows (spec 6: property.create, jobRequest.completed, jobRequest.canceled, comment.new)', () => {
    expect(EVENT_NAMES).toEqual(expect.arrayContaining(['property.create', 'jobRequest.completed', 'jobRequest.canceled', 'comment.new']));
  });

  it('names events <resource>.<verb>', () => {
    for (const name of EVENT_NAMES) expect(name).toMatch(/^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/);
  });
});
