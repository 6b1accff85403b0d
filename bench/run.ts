import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { authOverhead } from './scenarios/auth-overhead';
import { propertiesScale } from './scenarios/properties-scale';
import { webhookFanout } from './scenarios/webhook-fanout';

/**
 * `npm run bench [-- scenario ...]`: runs the scenarios, prints a markdown table
 * per scenario, and writes bench/results/<scenario>.json for docs/performance.md.
 */
interface ScenarioResult {
  name: string;
  budget: string;
  pass: boolean;
  results: unknown;
  table: string[][];
}

const SCENARIOS: Record<string, () => Promise<ScenarioResult>> = {
  'auth-overhead': authOverhead,
  'properties-scale': propertiesScale,
  'webhook-fanout': webhookFanout,
};

function markdown(table: string[][]): string {
  const [head, ...rows] = table;
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  const names = requested.length ? requested : Object.keys(SCENARIOS);
  const resultsDir = join(__dirname, '..', '..', 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  let failed = false;
  for (const name of names) {
    const scenario = SCENARIOS[name];
    if (!scenario) throw new Error(`Unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    process.stderr.write(`running ${name}...\n`);
    const result = await scenario();
    failed ||= !result.pass;
    const when = new Date().toISOString();
    writeFileSync(join(resultsDir, `${name}.json`), JSON.stringify({ ...result, when }, null, 2) + '\n');
    process.stdout.write(
      `\n### ${name} (${result.pass ? 'within budget' : 'OVER BUDGET'}: ${result.budget})\n\n${markdown(result.table)}\n`,
    );
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
