import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { transformSync } from '@swc/core';
import { join } from 'node:path';
import { Bindings, compactJson, fillPlaceholders, matchShown, readdress } from './doc-example-output';
import { DocExample, HttpRequestExample, ShellStep } from './doc-examples';
import { testPrerequisites } from './prerequisites';
import { waitUntil } from './wait';

const ROOT = join(__dirname, '..', '..');
/** Where the SDK's programs run from: inside the repository, so `import … from '@property-ops/platform-api-client'` resolves. */
const PROGRAMS = join(ROOT, 'node_modules', '.cache', 'doc-examples');
const STEP_TIMEOUT_MS = 60_000;
/** How long a process left running has to print what the page shows (its first line: before the page goes on). */
const BACKGROUND_TIMEOUT_MS = 20_000;

/**
 * Commands that install, build, start the service or run the tests: a page marks them as not run (the
 * test has its API and worker; one of them here would rebuild the checkout under the test). A guard, not
 * the rule: the page's marker is the rule.
 */
const NEVER_RUN = /\b(npm (ci|install|i|start|test)\b|npm run(-script)?( -\S+)* (start|build|test|db:|bench|docs:)|git clone\b|docker\b)/;

/** What a page's commands see: the run's API and receiver stand where the page writes its addresses. */
export interface DocExamplesSetup {
  apiUrl: string;
  /** The page's address → the run's (`localhost:3000` → the API the test started). */
  addresses: Array<[string, string]>;
  /** The environment of the page's commands (the test run's database and Redis, so `npm run cli` acts on the test's API). */
  env: Record<string, string>;
}

interface StepResult {
  status: number;
  stdout: string;
  stderr: string;
  /** The HTTP statuses the step's curl calls got, in order. */
  answers: number[];
}

interface Background {
  step: ShellStep;
  log: string;
}

/**
 * Runs the examples of pages (test/support/doc-examples.ts) as a reader would: each page's shell examples in
 * one bash session (its variables carry from block to block), placeholders filled with what earlier examples
 * printed (doc-example-output.ts), every HTTP answer a command gets recorded through a `curl` that keeps the
 * status (an error answer fails the example unless the page shows it), processes a page leaves running
 * stopped at its end once they printed what it shows.
 */
export class DocExampleRunner {
  private readonly bindings: Bindings = new Map();
  private readonly dir = mkdtempSync(join(tmpdir(), 'pop-doc-examples-'));
  private readonly answersDir = join(this.dir, 'answers');
  private session?: ShellSession;
  private backgrounds: Background[] = [];
  /** The page's example that failed: the ones after it depend on it, and are not run. */
  private failed?: string;

  constructor(private readonly setup: DocExamplesSetup) {
    const bin = join(this.dir, 'bin');
    for (const dir of [bin, this.answersDir]) mkdirSync(dir);
    const realCurl = testPrerequisites().curl;
    writeFileSync(
      join(bin, 'curl'),
      `#!/bin/sh\n# The real curl, keeping each answer's status line for the test (doc-example-runner.ts).\n` +
        `exec "${realCurl}" --dump-header "${this.answersDir}/$(date +%s%N)-$$" "$@"\n`,
    );
    chmodSync(join(bin, 'curl'), 0o755);
    this.setup.env = { ...setup.env, PATH: `${bin}:${setup.env.PATH ?? process.env.PATH}` };
  }

  async run(example: DocExample): Promise<void> {
    const name = `${example.page}:${example.line} (${example.heading})`;
    if (this.failed) throw new Error(`${name}: not run, as ${this.failed} failed before it`);
    try {
      if (example.shell) for (const step of example.shell) await this.runStep(step);
      else if (example.http) await this.runHttp(example.http);
      else if (example.sdk !== undefined) await this.runSdkProgram(example);
      else if (example.partOf) checkPartOf(example.partOf);
    } catch (error) {
      this.failed = name;
      throw new Error(`${name}: ${(error as Error).message}`);
    }
  }

  /** The page is over: what its running processes were shown to print, then they stop. */
  async endPage(page: string): Promise<void> {
    try {
      for (const background of this.backgrounds) await this.awaitShown(background, background.step.shown);
    } catch (error) {
      throw new Error(`${page}: ${(error as Error).message}`);
    } finally {
      await this.session?.close();
      this.session = undefined;
      this.backgrounds = [];
      this.failed = undefined;
    }
  }

  async close(): Promise<void> {
    await this.session?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async runStep(step: ShellStep): Promise<void> {
    if (NEVER_RUN.test(step.command)) {
      throw new Error(
        `line ${step.line}: $ ${step.command}\ninstalls, builds, starts or tests the service: mark the block <!-- example: not run: why -->`,
      );
    }
    const command = fillPlaceholders(readdress(step.command, this.setup.addresses), this.bindings);
    this.session ??= new ShellSession(ROOT, this.setup.env, this.dir);
    const where = `line ${step.line}: $ ${step.command}\n`;
    if (step.background) {
      const log = join(this.dir, `background-${step.line}.log`);
      await this.session.run(command.replace(/&\s*$/, ''), log);
      const background = { step, log };
      this.backgrounds.push(background);
      // The first line it shows is its "ready": the page goes on once it is printed.
      if (step.shown.length)
        await this.awaitShown(background, step.shown.slice(0, 1)).catch((e: Error) => Promise.reject(new Error(where + e.message)));
      return;
    }
    const result = await this.session.run(command);
    result.answers = this.takeAnswers();
    const failure = this.checkStep(step, result);
    if (failure) {
      throw new Error(`${where}${failure}\n--- stdout:\n${result.stdout.slice(0, 2000)}\n--- stderr:\n${result.stderr.slice(0, 2000)}`);
    }
  }

  /** Why the step's outcome is not what the page says, or undefined. */
  private checkStep(step: ShellStep, result: StepResult): string | undefined {
    if (result.status !== 0) return `exited with ${result.status}`;
    if (!step.shown.length) {
      const refused = result.answers.find((status) => status >= 400);
      return refused ? `an HTTP ${refused} answer, which the page does not show` : undefined;
    }
    const shown = readdress(step.shown.join('\n'), this.setup.addresses);
    const [, status, body] = /^(?:(\d{3}) )?([^]*)$/.exec(shown)!;
    const last = result.answers.at(-1);
    if (status && last !== Number(status)) return `the page shows HTTP ${status}, the answer was ${last ?? 'none'}`;
    if (!status && last && last >= 400) return `an HTTP ${last} answer where the page shows none`;
    const bound = matchShown(body, result.stdout);
    if (!bound) return `the output is not what the page shows:\n  shown:  ${body}\n  actual: ${result.stdout.trimEnd()}`;
    for (const [name, value] of bound) this.bindings.set(name, value);
    return undefined;
  }

  private async runHttp(example: HttpRequestExample): Promise<void> {
    const text = fillPlaceholders(readdress(example.text, this.setup.addresses), this.bindings);
    const [head, ...bodyParts] = text.split(/\n\s*\n/);
    const [requestLine, ...headerLines] = head.split('\n');
    const [method, path] = requestLine.split(' ');
    const headers = Object.fromEntries(
      headerLines.map((line) => [line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const body = bodyParts.join('\n\n').trim();
    const response = await fetch(`${this.setup.apiUrl}${path}`, { method, headers, body: body || undefined });
    const answer = await response.text();
    const where = `${requestLine}\n`;
    if (!example.shown) {
      if (response.status >= 400) throw new Error(`${where}an HTTP ${response.status} answer, which the page does not show: ${answer}`);
      return;
    }
    const bound = matchShown(compactJson(readdress(example.shown, this.setup.addresses)), compactJson(answer));
    if (!bound)
      throw new Error(
        `${where}the answer (HTTP ${response.status}) is not what the page shows:\n  shown:  ${example.shown}\n  actual: ${answer}`,
      );
    for (const [name, value] of bound) this.bindings.set(name, value);
  }

  /**
   * A TypeScript program of the SDK's: its types stripped (swc), written as an ES module where Node finds the
   * repository's packages (the SDK is an npm workspace), and run with node in the page's shell, as a reader runs it.
   */
  private async runSdkProgram(example: DocExample): Promise<void> {
    const source = readdress(example.sdk!, this.setup.addresses);
    const { code } = transformSync(source, { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } });
    mkdirSync(PROGRAMS, { recursive: true });
    const file = join(PROGRAMS, `${example.page.replace(/\W+/g, '-')}-${example.line}-${process.pid}.mjs`);
    writeFileSync(file, code);
    try {
      await this.runStep({ line: example.line, command: `node '${file}'`, background: false, shown: [] });
    } finally {
      rmSync(file, { force: true });
    }
  }

  /** Every line shown is printed by the process (in any order: deliveries are unordered), polled until then. */
  private async awaitShown(background: Background, lines: string[]): Promise<void> {
    const expected = lines.map((line) => readdress(line, this.setup.addresses));
    const printed = () => {
      try {
        return readFileSync(background.log, 'utf8').split('\n');
      } catch {
        return [];
      }
    };
    const missing = () => {
      const left = printed();
      return expected.filter((line) => {
        const at = left.findIndex((candidate) => matchShown(line, candidate));
        if (at < 0) return true;
        left.splice(at, 1);
        return false;
      });
    };
    await waitUntil(async () => missing().length === 0, BACKGROUND_TIMEOUT_MS).catch(() => {
      const said = `line ${background.step.line}: $ ${background.step.command}\nnever printed ${JSON.stringify(missing())}`;
      throw new Error(`${said}; it printed:\n${printed().join('\n')}`);
    });
  }

  /** The statuses of the HTTP answers curl got since the last look, in order. */
  private takeAnswers(): number[] {
    const files = readdirSync(this.answersDir).sort();
    const statuses = files.map((file) => lastStatus(readFileSync(join(this.answersDir, file), 'utf8')));
    for (const file of files) rmSync(join(this.answersDir, file));
    return statuses;
  }
}

/** A block the page says is a part of a file: it is, word for word (the file runs where the page runs it). */
function checkPartOf({ file, text }: { file: string; text: string }): void {
  if (!readFileSync(join(ROOT, file), 'utf8').includes(text))
    throw new Error(`the block is not a part of ${file} as written: copy it there again`);
}

/** The status of curl's --dump-header file: its last status line (a redirect writes several). */
function lastStatus(dump: string): number {
  const lines = dump.split(/\r?\n/).filter((line) => line.startsWith('HTTP/'));
  return Number(lines.at(-1)?.split(' ')[1] ?? 0);
}

/**
 * One bash, as a reader's terminal: each command is written to a file and sourced (so its variables stay for
 * the next), with no standard input (a command reading it would read the session's own), then a marker line
 * with its status on stdout and stderr tells the command is done.
 */
class ShellSession {
  private readonly child: ChildProcess;
  private stdout = '';
  private stderr = '';
  private wake?: () => void;
  private count = 0;

  constructor(
    cwd: string,
    env: Record<string, string>,
    private readonly dir: string,
  ) {
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child.stdout!.on('data', (chunk: Buffer) => ((this.stdout += chunk.toString('utf8')), this.wake?.()));
    this.child.stderr!.on('data', (chunk: Buffer) => ((this.stderr += chunk.toString('utf8')), this.wake?.()));
    this.child.on('exit', () => this.wake?.());
    this.child.stdin!.write('set -o pipefail\n');
  }

  /** Runs `command` (in the background, its output to `log`, when a log is given) and resolves once it is done (started). */
  async run(command: string, log?: string): Promise<StepResult> {
    const marker = `__doc_example_step_${++this.count}__`;
    const file = join(this.dir, `step-${this.count}.sh`);
    writeFileSync(file, `${command}\n`);
    const source = `. '${file}' </dev/null`;
    this.stdout = '';
    this.stderr = '';
    this.child.stdin!.write(
      `${log ? `${source} >'${log}' 2>&1 &` : source}\n` + `printf '\\n${marker} %d\\n' "$?"; printf '\\n${marker}\\n' >&2\n`,
    );
    const done = new RegExp(`\\n${marker} (\\d+)\\n`);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`still running after ${STEP_TIMEOUT_MS / 1000} s`)), STEP_TIMEOUT_MS);
      this.wake = () => {
        if (this.ended()) reject(new Error(`the shell exited: ${this.stderr}`));
        else if (done.test(this.stdout) && this.stderr.includes(`\n${marker}\n`)) resolve();
        else return;
        clearTimeout(timer);
      };
      this.wake();
    });
    const ended = done.exec(this.stdout)!;
    return {
      status: Number(ended[1]),
      stdout: this.stdout.slice(0, ended.index),
      stderr: this.stderr.slice(0, this.stderr.indexOf(`\n${marker}\n`)),
      answers: [],
    };
  }

  private ended(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Ends the shell and whatever it left running (its process group), once all of it is gone. */
  async close(): Promise<void> {
    const group = -this.child.pid!;
    const alive = () => {
      try {
        process.kill(group, 0);
        return true;
      } catch {
        return false;
      }
    };
    if (alive()) process.kill(group, 'SIGTERM');
    await waitUntil(async () => !alive() && this.ended(), 10_000, 'the examples shell and its processes to end');
  }
}
