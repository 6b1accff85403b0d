#!/usr/bin/env node
// Rewrites docs/events.md's event tables from the events the modules declare (src/modules/modules.ts assembles them).
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const doc = join(__dirname, '..', 'docs', 'events.md');
const { renderEventTables } = require(join(__dirname, '..', 'dist', 'modules', 'events', 'event-catalogue.docs.js'));
const { DECLARED } = require(join(__dirname, '..', 'dist', 'modules', 'modules.js'));
const before = readFileSync(doc, 'utf8');
const after = renderEventTables(before, DECLARED.events);
if (after === before) {
  process.stdout.write('docs/events.md is up to date\n');
} else {
  writeFileSync(doc, after);
  process.stdout.write('docs/events.md: event tables rewritten from the catalogue\n');
}
