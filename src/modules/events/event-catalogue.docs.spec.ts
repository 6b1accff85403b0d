import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DECLARED } from '../modules';
import { cataloguedPrefixes, documentedPrefixes, renderEventTables } from './event-catalogue.docs';

const EVENTS = DECLARED.events;
const EVENT_NAMES = DECLARED.eventNames;

const DOC = join(__dirname, '../../../docs/events.md');

describe('docs/events.md and the event catalogue', () => {
  const markdown = readFileSync(DOC, 'utf8');

  it('lists every catalogued event once: each name prefix has exactly one table', () => {
    expect([...documentedPrefixes(markdown)].sort()).toEqual(cataloguedPrefixes(EVENTS).sort());
  });

  it('has the tables the catalogue generates (run `npm run docs:events` after changing the events a module declares)', () => {
    expect(markdown).toBe(renderEventTables(markdown, EVENTS));
  });

  it('names each event and its results schema in a table row', () => {
    const rows = markdown.split('\n').filter((line) => /^\| `\w+\.\w+` \|/.test(line));
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
