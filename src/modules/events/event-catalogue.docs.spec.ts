import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_CATALOGUE, EVENT_NAMES } from './event-catalogue';
import { CATALOGUED_PREFIXES, documentedPrefixes, renderEventTables } from './event-catalogue.docs';

const DOC = join(__dirname, '../../../docs/events.md');

describe('docs/events.md and the event catalogue', () => {
  const markdown = readFileSync(DOC, 'utf8');

  it('lists every catalogued event once: each name prefix has exactly one table', () => {
    expect([...documentedPrefixes(markdown)].sort()).toEqual([...CATALOGUED_PREFIXES].sort());
  });

  it('has the tables the catalogue generates (run `npm run docs:events` after changing event-catalogue.ts)', () => {
    expect(markdown).toBe(renderEventTables(markdown));
  });

  it('names each event and its results schema in a table row', () => {
    const rows = markdown.split('\n').filter((line) => /^\| `\w+\.\w+` \|/.test(line));
    const documented = rows.map((row) => {
      const cells = row.split(' | ');
      return [cells[0].slice(3, -1), cells[cells.length - 1].slice(1, -3)];
    });
    expect(documented.sort()).toEqual(EVENT_NAMES.map((name) => [name, EVENT_CATALOGUE[name].payload]).sort());
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
