import { DocExampleSyntaxError, parseDocExamples } from './doc-examples';

const page = (...lines: string[]) => lines.join('\n');

describe('parseDocExamples', () => {
  it('reads a shell block as steps, each with the JSON output the page shows under it', () => {
    const [example] = parseDocExamples(
      'README.md',
      page(
        '# Title',
        '## First call',
        '',
        '```sh',
        'npm run --silent cli -- accounts:create --name Acme',
        '# {"accountId":"acct_…","apiKey":"popk_…"}   ← the key is shown once',
        '',
        '# A comment of prose, then a command without output',
        'curl -s localhost:3000/v1/health',
        '```',
      ),
    );
    expect(example).toMatchObject({ page: 'README.md', line: 4, heading: 'First call' });
    expect(example.shell).toEqual([
      {
        line: 5,
        command: 'npm run --silent cli -- accounts:create --name Acme',
        background: false,
        shown: ['{"accountId":"acct_…","apiKey":"popk_…"}'],
      },
      { line: 9, command: 'curl -s localhost:3000/v1/health', background: false, shown: [] },
    ]);
  });

  it('joins the lines bash needs to read a command whole: continuations, an open quote or $(…)', () => {
    const [example] = parseDocExamples(
      'p.md',
      page('```bash', 'A=$(curl -s x \\', "  -d '{", '  "a": 1', "}' | node -p 1)", '# 201 {"id":"sub_…"}', 'echo done', '```'),
    );
    expect(example.shell!.map((s) => [s.line, s.command.split('\n').length, s.shown])).toEqual([
      [2, 4, ['201 {"id":"sub_…"}']],
      [7, 1, []],
    ]);
  });

  it('takes prose comments as prose, and under a process left running (&) every comment line as what it prints', () => {
    const [example] = parseDocExamples(
      'p.md',
      page(
        '```sh',
        'curl -s x',
        '# → a webhook arrives',
        '# {"not":"output: prose came first"}',
        'node receiver.js &',
        '# Listening',
        '# verified property.create whd_…',
        '```',
      ),
    );
    expect(example.shell).toEqual([
      { line: 2, command: 'curl -s x', background: false, shown: [] },
      { line: 5, command: 'node receiver.js &', background: true, shown: ['Listening', 'verified property.create whd_…'] },
    ]);
  });

  it('reads an http block, with the json block right after it as the answer it shows', () => {
    const [example] = parseDocExamples(
      'p.md',
      page('```http', 'POST /v1/webhooks', 'x-api-key: popk_…', '', '{"url": "u"}', '```', '```json', '{"id": "sub_…"}', '```'),
    );
    expect(example.http).toEqual({ text: 'POST /v1/webhooks\nx-api-key: popk_…\n\n{"url": "u"}', shown: '{"id": "sub_…"}' });
  });

  it('takes a block of another language whose first line is a request line as an http example', () => {
    const [example] = parseDocExamples('p.md', page('```json', 'POST /legacy/batch', '{}', '```'));
    expect(example.http).toEqual({ text: 'POST /legacy/batch\n{}', shown: undefined });
  });

  it('takes a ts block importing the SDK as a program; another ts block is a fragment, no example', () => {
    const program = "import { must } from '@property-ops/platform-api-client';\n\nawait must(x);";
    const [example, ...rest] = parseDocExamples('p.md', page('```ts', program, '```', '```ts', 'await must(api.GET(path));', '```'));
    expect(example).toMatchObject({ line: 1, sdk: program });
    expect(rest).toEqual([]);
  });

  it('leaves out blocks that are no examples (json shapes, js, text)', () => {
    expect(parseDocExamples('p.md', page('```json', '{"a": 1}', '```', '```js', 'f()', '```', '```', 'Sort', '```'))).toEqual([]);
  });

  it('reads a fence indented in a list item without its indentation', () => {
    const [example] = parseDocExamples('p.md', page('- item:', '', '  ```sh', '  echo hi', '  # {"a":1}', '  ```'));
    expect(example.shell).toEqual([{ line: 4, command: 'echo hi', background: false, shown: ['{"a":1}'] }]);
  });

  it('reads the markers: not run (with its reason), and part of a file', () => {
    const examples = parseDocExamples(
      'p.md',
      page(
        '<!-- example: not run: starts the service -->',
        '```sh',
        'npm start',
        '```',
        '<!-- example: part of examples/x.js -->',
        '```js',
        'f()',
        '```',
      ),
    );
    expect(examples).toEqual([
      expect.objectContaining({ line: 2, notRun: 'starts the service' }),
      expect.objectContaining({ line: 6, partOf: { file: 'examples/x.js', text: 'f()' } }),
    ]);
  });

  it('refuses a marker that is not right before a fence, before a block that is no example, or that says nothing known', () => {
    const fails = (markdown: string, message: RegExp) => expect(() => parseDocExamples('p.md', markdown)).toThrow(message);
    expect(() => parseDocExamples('p.md', page('<!-- example: not run: x -->', '', '```sh', 'a', '```'))).toThrow(DocExampleSyntaxError);
    fails(
      page('<!-- example: not run: x -->', '', '```sh', 'a', '```'),
      /p\.md:1: an example marker must be on the line right before a fenced block/,
    );
    fails(page('<!-- example: not run: x -->', '```json', '{}', '```'), /p\.md:1: an example marker before a block that is no example/);
    fails(page('<!-- example: skip -->', '```sh', 'a', '```'), /p\.md:1: "skip": the marker is/);
    fails(page('<!-- example: not run: -->', '```sh', 'a', '```'), /the marker is "example: not run: why"/);
    fails(page('```sh', 'a'), /p\.md:1: a fenced block that is never closed/);
  });
});
