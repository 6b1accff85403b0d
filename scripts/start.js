#!/usr/bin/env node
// `npm start`: build if needed, create the database and apply migrations, then run
// the API and the worker together with prefixed logs. Ctrl-C stops both cleanly.
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');
const { concurrently } = require('concurrently');
const { ensureBuilt } = require('./ensure-built');

const root = join(__dirname, '..');
ensureBuilt();
execFileSync(process.execPath, [join(root, 'dist', 'database', 'migrate.js')], { stdio: 'inherit', cwd: root });

const { result } = concurrently(
  [
    { name: 'api', command: `"${process.execPath}" dist/main.js`, prefixColor: 'cyan' },
    { name: 'worker', command: `"${process.execPath}" dist/worker.js`, prefixColor: 'magenta' },
  ],
  { cwd: root, killOthersOn: ['failure', 'success'], killSignal: 'SIGTERM', handleInput: false },
);
result.then(
  () => process.exit(0),
  (events) => process.exit(events.some((e) => e.killed) ? 0 : 1),
);
