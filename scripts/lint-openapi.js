#!/usr/bin/env node
// Lints the published OpenAPI document: builds it from the code (scripts/openapi-document.js, no
// database needed), writes it to a temporary folder and runs Spectral (spectral:oas, .spectral.yaml)
// and Redocly (recommended, redocly.yaml, .redocly.lint-ignore.yaml) on it. Warnings fail too: a rule
// that does not apply is switched off in the ruleset file, with the reason, or (for one operation) in an
// override or the ignore file that names the operation. The rule files are copied beside the document,
// so the paths they name (`openapi.json#/paths/...`) are the document's. Offline: Redocly's telemetry and
// update check are off (redocly.yaml, and the environment below).
const { execFileSync } = require('node:child_process');
const { copyFileSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (command, args, env = {}) => execFileSync(command, args, { cwd: dir, stdio: 'inherit', env: { ...process.env, ...env } });

try {
  for (const file of ['.spectral.yaml', 'redocly.yaml', '.redocly.lint-ignore.yaml']) copyFileSync(join(root, file), join(dir, file));
  run(process.execPath, [join(__dirname, 'openapi-document.js'), join(dir, 'openapi.json')]);
  run(bin('spectral'), ['lint', '--ruleset', '.spectral.yaml', '--fail-severity=warn', '--format=text', 'openapi.json']);
  run(bin('redocly'), ['lint', '--config', 'redocly.yaml', '--max-problems=50', 'openapi.json'], {
    REDOCLY_TELEMETRY: 'off',
    REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  });
} catch (error) {
  process.exitCode = typeof error.status === 'number' ? error.status || 1 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
