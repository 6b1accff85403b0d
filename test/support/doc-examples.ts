import { spawnSync } from 'node:child_process';

/**
 * The runnable examples of a Markdown page (README.md, docs/*.md), read as a reader reads them:
 * the rules for writers are in docs/architecture.md, "Tests".
 *
 * - A fenced `sh`, `bash` or `shell` block is a shell example: each command (a line, and the lines bash
 *   needs to read it whole: `\` continuations, a quote or a `$(…)` left open) is a step. The `# ` lines right under a command that start with JSON (`{`, `[`),
 *   optionally after an HTTP status (`# 201 {…}`), are the output the page shows for it; under a
 *   command that ends with `&` (a process left running, such as a webhook receiver) every `# ` line is.
 *   A note after `←` on a shown line is the page's aside, not output. Other comments are prose.
 * - A fenced `http` block (or any block whose first line is a request line, `POST /v1/webhooks`) is
 *   an HTTP example; a `json` block right after it is the answer it shows.
 * - A fenced `ts` block that imports the TypeScript SDK is a program: it runs, and must end well (exit 0).
 * - `<!-- example: not run: why -->` on the line before a fence marks an example that cannot run as
 *   written (it starts the service, or needs a real third party): it is listed as skipped, by name.
 * - `<!-- example: part of FILE -->` before a block of any language says the block is a part of a file
 *   of the repository, which runs where that file runs (a receiver a page starts): the test checks it is.
 */

export interface ShellStep {
  /** The page's line of the command's first line. */
  line: number;
  command: string;
  /** It ends with `&`: it keeps running beside the page, and its shown lines are what it prints meanwhile. */
  background: boolean;
  /** The output the page shows for it, one entry per shown line, asides removed. */
  shown: string[];
}

export interface HttpRequestExample {
  /** The request as written: request line, headers, a blank line, the body. */
  text: string;
  /** The answer's body the page shows (the json block after it), when it shows one. */
  shown?: string;
}

export interface DocExample {
  page: string;
  /** The page's line of the opening fence. */
  line: number;
  /** The nearest heading above it. */
  heading: string;
  /** Why the page marks it as not run, when it does. */
  notRun?: string;
  /** The repository file the block is a part of (`<!-- example: part of FILE -->`), with the block's text. */
  partOf?: { file: string; text: string };
  shell?: ShellStep[];
  http?: HttpRequestExample;
  /** A TypeScript program using the SDK: its source. */
  sdk?: string;
}

/** A page whose markers or examples cannot be read as the rules say: the message names the line. */
export class DocExampleSyntaxError extends Error {}

const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell']);
const SDK_IMPORT = /^import .* from '@property-ops\/platform-api-client';$/m;
const REQUEST_LINE = /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \/\S*( HTTP\/\d(\.\d)?)?$/;
const MARKER = /^<!--\s*example:\s*(.*?)\s*-->$/;
const SHOWN_JSON = /^(\d{3} )?[{[]/;

interface Fence {
  line: number;
  /** The page's line of the closing fence. */
  end: number;
  heading: string;
  language: string;
  body: string[];
  /** What the line before the fence says, when it is an example marker. */
  marker?: { line: number; directive: string };
}

/** The examples of a page, in page order; `page` names it in every message. */
export function parseDocExamples(page: string, markdown: string): DocExample[] {
  const lines = markdown.split('\n');
  const fences = readFences(page, lines);
  const examples: DocExample[] = [];
  fences.forEach((fence, index) => {
    const partOf = fence.marker && /^part of (\S+)$/.exec(fence.marker.directive)?.[1];
    if (partOf) {
      examples.push({ page, line: fence.line, heading: fence.heading, partOf: { file: partOf, text: fence.body.join('\n') } });
      return;
    }
    const isShell = SHELL_LANGUAGES.has(fence.language);
    const isHttp = fence.language === 'http' || REQUEST_LINE.test(fence.body[0] ?? '');
    const isSdk = ['ts', 'typescript'].includes(fence.language) && SDK_IMPORT.test(fence.body.join('\n'));
    if (!isShell && !isHttp && !isSdk) {
      if (fence.marker)
        throw new DocExampleSyntaxError(`${page}:${fence.marker.line}: an example marker before a block that is no example`);
      return;
    }
    const example: DocExample = { page, line: fence.line, heading: fence.heading, notRun: notRunReason(page, fence) };
    if (isShell) example.shell = shellSteps(fence);
    else if (isSdk) example.sdk = fence.body.join('\n');
    else {
      const next = fences[index + 1];
      const adjacent = next && lines.slice(fence.end, next.line - 1).every((line) => line.trim() === '');
      const answer = adjacent && next.language === 'json' ? next : undefined;
      example.http = { text: fence.body.join('\n'), shown: answer?.body.join('\n') };
    }
    examples.push(example);
  });
  return examples;
}

function notRunReason(page: string, fence: Fence): string | undefined {
  if (!fence.marker) return undefined;
  const reason = /^not run:\s*(\S.*)$/.exec(fence.marker.directive)?.[1];
  if (!reason) {
    throw new DocExampleSyntaxError(
      `${page}:${fence.marker.line}: "${fence.marker.directive}": the marker is "example: not run: why" or "example: part of FILE"`,
    );
  }
  return reason;
}

function readFences(page: string, lines: string[]): Fence[] {
  const fences: Fence[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (MARKER.test(line.trim()) && !/^\s*```/.test(lines[i + 1] ?? '')) {
      throw new DocExampleSyntaxError(`${page}:${i + 1}: an example marker must be on the line right before a fenced block`);
    }
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '');
    // A fence may be indented (inside a list item): its lines are read without that indentation.
    const open = /^(\s*)```(\S*)/.exec(line);
    if (!open) continue;
    const [, indent, language] = open;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++)
      body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i]);
    if (i === lines.length) throw new DocExampleSyntaxError(`${page}:${start + 1}: a fenced block that is never closed`);
    const before = MARKER.exec((lines[start - 1] ?? '').trim());
    fences.push({
      line: start + 1,
      end: i + 1,
      language,
      body,
      heading,
      marker: before ? { line: start, directive: before[1] } : undefined,
    });
  }
  return fences;
}

/** Whether bash reads `command` as whole, not cut off in a quote, a `$(…)`, a `{ … }` or after a `\`: bash's own parser says. */
function isComplete(command: string): boolean {
  if (/\\$/.test(command)) return false;
  const check = spawnSync('bash', ['-n'], { input: command, encoding: 'utf8' });
  return !/unexpected end of file|unexpected EOF/.test(check.stderr);
}

/** A shell block's commands, each with the output shown under it. */
function shellSteps(fence: Fence): ShellStep[] {
  const steps: ShellStep[] = [];
  let current: ShellStep | undefined;
  for (let i = 0; i < fence.body.length; i++) {
    const text = fence.body[i];
    const trimmed = text.trim();
    if (trimmed === '') {
      current = undefined;
      continue;
    }
    if (trimmed.startsWith('#')) {
      const comment = trimmed.replace(/^#\s?/, '');
      // Right under a command (or under its shown output): its output; anything else is prose.
      if (current && (current.background || SHOWN_JSON.test(comment))) current.shown.push(comment.replace(/\s+←.*$/, '').trimEnd());
      else current = undefined;
      continue;
    }
    const first = i;
    const lines = [text];
    while (!isComplete(lines.join('\n')) && i + 1 < fence.body.length) lines.push(fence.body[++i]);
    const command = lines.join('\n');
    current = { line: fence.line + 1 + first, command, background: /(^|[^&])&\s*$/.test(command), shown: [] };
    steps.push(current);
  }
  return steps;
}
