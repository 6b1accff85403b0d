import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LLMS_PAGES, llmsTxt, readLlmsPages } from './llms-txt';

describe('/llms.txt', () => {
  it('lists every page of docs/ and the README', () => {
    const docs = readdirSync(join(__dirname, '../../docs')).filter((name) => name.endsWith('.md'));
    expect(LLMS_PAGES.map((page) => page.file).sort()).toEqual(['README.md', ...docs.map((name) => `docs/${name}`)].sort());
    expect(readLlmsPages()).toHaveLength(LLMS_PAGES.length);
  });

  it('follows the llmstxt.org layout: an H1, a summary quote, then sections of links', () => {
    const text = llmsTxt('https://api.example.com', readLlmsPages());
    const lines = text.split('\n');
    expect(lines[0]).toBe('# Property Operations Platform API');
    expect(lines[2]).toMatch(/^> /);
    expect(lines.filter((line) => line.startsWith('## '))).toEqual(['## API', '## Docs', '## Optional']);
    expect(text).toContain('- [OpenAPI 3.1 document](https://api.example.com/v1/openapi.json): ');
    expect(text).toContain('- [Webhooks](https://api.example.com/llms/webhooks.md): ');
    for (const line of lines.filter((line) => line.startsWith('- ')))
      expect(line).toMatch(/^- \[[^\]]+\]\(https:\/\/api\.example\.com\/\S*\): \S/);
  });
});
