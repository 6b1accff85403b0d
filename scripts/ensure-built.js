#!/usr/bin/env node
// Builds dist/ when it is missing or older than any source file, so every script
// works straight after `npm ci`. tsc's incremental build keeps a no-op cheap.
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function ensureBuilt() {
  const marker = join(root, 'dist', 'main.js');
  const sourceTime = Math.max(newestMtime(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs);
  if (existsSync(marker) && statSync(marker).mtimeMs >= sourceTime) return;
  process.stderr.write('Building (tsc)...\n');
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], {
    stdio: 'inherit',
    cwd: root,
  });
  copyAssets();
  // tsc leaves unchanged outputs untouched; mark the build as current.
  const now = new Date();
  require('node:fs').utimesSync(marker, now, now);
}

/** What tsc does not emit: the account console's stylesheet and script, served from beside its compiled code. */
function copyAssets() {
  const { cpSync } = require('node:fs');
  cpSync(join(root, 'src', 'modules', 'console', 'assets'), join(root, 'dist', 'modules', 'console', 'assets'), { recursive: true });
}

module.exports = { ensureBuilt, copyAssets };
if (require.main === module) ensureBuilt();
