#!/usr/bin/env node
// Rewrites the event tables of docs/*.md (docs/events.md's, and a module's own page's) from the events the
// modules declare (src/modules/modules.ts assembles them).
const { readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const docs = join(__dirname, '..', 'docs');
const { renderEventTables } = require(join(__dirname, '..', 'dist', 'modules', 'events', 'event-catalogue.docs.js'));
const { DECLARED } = require(join(__dirname, '..', 'dist', 'modules', 'modules.js'));
let rewritten = 0;
for (const name of readdirSync(docs).filter((file) => file.endsWith('.md'))) {
  const before = readFileSync(join(docs, name), 'utf8');
  const after = renderEventTables(before, DECLARED.events);
  if (after === before) continue;
  writeFileSync(join(docs, name), after);
  process.stdout.write(`docs/${name}: event tables rewritten from the declared events\n`);
  rewritten++;
}
if (rewritten === 0) process.stdout.write('the event tables of docs/ are up to date\n');
