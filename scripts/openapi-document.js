#!/usr/bin/env node
// Builds the published OpenAPI document from the code, without a database or Redis: the app is
// created in Nest's preview mode (modules and controllers are scanned, no provider starts, nothing
// connects), and the document is built from its controllers as GET /v1/openapi.json builds it.
// TypeScript is compiled on the fly with @swc/core (the compiler the tests use), so no build is needed.
// Usage: node scripts/openapi-document.js [out.json]   (stdout without a file)
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const swc = require('@swc/core');

const root = join(__dirname, '..');
const swcrc = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8'));
require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(readFileSync(filename, 'utf8'), { ...swcrc, filename, sourceMaps: false, swcrc: false });
  module._compile(code, filename);
};

async function main() {
  require('reflect-metadata');
  const { NestFactory } = require('@nestjs/core');
  const { loadConfig } = require(join(root, 'src/config/config.ts'));
  const { AppModule } = require(join(root, 'src/app.module.ts'));
  const { buildOpenApiDocument } = require(join(root, 'src/openapi/openapi.document.ts'));
  const config = loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent' });
  const app = await NestFactory.create(AppModule.forRoot(config), { preview: true, logger: false, abortOnError: false });
  const document = buildOpenApiDocument(app, config);
  const text = JSON.stringify(document, null, 2) + '\n';
  if (process.argv[2]) writeFileSync(process.argv[2], text);
  else process.stdout.write(text);
  await app.close();
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
