#!/usr/bin/env node
// Lints the published OpenAPI document: builds it from the code (scripts/openapi-document.js, no
// database needed), writes it to a temporary file and runs Spectral (spectral:oas, .spectral.yaml)
// and Redocly (recommended, redocly.yaml) on it. Warnings fail too: a rule that does not apply is
// switched off in the ruleset file, with the reason. Offline: Redocly's telemetry and update check
// are off (redocly.yaml, and the environment below).
const { execFileSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
const file = join(dir, 'openapi.json');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (command, args, env = {}) => execFileSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });

try {
  run(process.execPath, [join(__dirname, 'openapi-document.js'), file]);
  run(bin('spectral'), ['lint', '--ruleset', join(root, '.spectral.yaml'), '--fail-severity=warn', '--format=text', file]);
  run(bin('redocly'), ['lint', '--config', join(root, 'redocly.yaml'), '--max-problems=50', file], {
    REDOCLY_TELEMETRY: 'off',
    REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  });
} catch (error) {
  process.exitCode = typeof error.status === 'number' ? error.status || 1 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
