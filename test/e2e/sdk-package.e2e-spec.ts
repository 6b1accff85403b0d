import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appSuite, clientFor, createAccount } from '../support/app';
import { must, packSdk, run, writeConsumerProject } from '../support/sdk-package';

/**
 * The SDK installs like a package (issue 34, item 4): `npm pack` of clients/typescript, installed with npm
 * alone in a project outside the repository (a scratch folder under the OS temp dir), offline from the
 * tarball and npm's cache; a small program compiled there with `tsc --strict` calls the running API, and a
 * mistyped one does not compile.
 */
const PROGRAM = `import { createPlatformClient, errorOf, must, PlatformApiError } from '@property-ops/platform-api-client';

async function main(): Promise<void> {
  const { api, paginate } = createPlatformClient({ baseUrl: process.env.POP_API_URL!, apiKey: process.env.POP_API_KEY! });
  const sourceId = process.env.POP_SOURCE_ID!;
  const property = await must(
    api.POST('/v1/properties', {
      body: {
        sourceId,
        name: 'Installed from the tarball',
        countryCode: 'FR',
        timeZone: 'Europe/Paris',
        location: { latitude: 43.7, longitude: 7.26 },
        beds: 2,
        bedrooms: 1,
        bathrooms: 1,
      },
    }),
  );
  const names: string[] = [];
  for await (const found of paginate('/v1/properties', { query: { sourceId } })) names.push(found.name);
  const missing = await api.GET('/v1/bookings/{bookingId}', { params: { path: { bookingId: 'bk_00000000000000000000000000' } } });
  const error: PlatformApiError = errorOf(missing.response, missing.error);
  console.log(JSON.stringify({ propertyId: property.propertyId, names, missing: [error.status, error.problem?.code] }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
`;

/** A call the API would refuse: its body lacks required fields, which the SDK's types say. */
const MISTYPED = `import { createPlatformClient } from '@property-ops/platform-api-client';

const { api } = createPlatformClient({ baseUrl: 'http://localhost', apiKey: 'popk_x' });
void api.POST('/v1/properties', { body: { name: 'No sourceId, no location' } });
`;

const TSCONFIG = (files: string[]) => ({
  compilerOptions: {
    strict: true,
    target: 'ES2022',
    lib: ['ES2022'],
    module: 'node16',
    moduleResolution: 'node16',
    types: ['node'],
    outDir: 'out',
  },
  files,
});

jest.setTimeout(300_000);

describe('the TypeScript SDK as a package', () => {
  const s = appSuite();
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pop-sdk-package-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('packs, installs offline with npm alone outside the repository, compiles under tsc --strict and calls the API', async () => {
    const sdk = await packSdk(dir);
    expect(sdk.manifest.dependencies).toEqual({ 'openapi-fetch': expect.any(String) });
    writeConsumerProject(dir, sdk, ['typescript', '@types/node']);
    await must('npm', ['ci', '--offline', '--no-audit', '--no-fund'], dir);

    writeFileSync(join(dir, 'main.ts'), PROGRAM);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG(['main.ts'])));
    await must(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], dir);

    // The SDK's types reach the project: a body without its required fields does not compile.
    writeFileSync(join(dir, 'mistyped.ts'), MISTYPED);
    writeFileSync(join(dir, 'tsconfig.mistyped.json'), JSON.stringify(TSCONFIG(['mistyped.ts'])));
    const mistyped = await run(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.mistyped.json'], dir);
    expect(mistyped.code).not.toBe(0);
    expect(mistyped.stdout).toMatch(/mistyped\.ts\(4,\d+\): error TS2322: .*sourceId: string/);

    const account = await createAccount(s.t);
    const sourceId = `from-tarball-${Date.now()}`;
    const { port } = s.t.app.getHttpServer().address() as AddressInfo;
    const out = await must(process.execPath, [join(dir, 'out', 'main.js')], dir, {
      POP_API_URL: `http://127.0.0.1:${port}`,
      POP_API_KEY: account.apiKey,
      POP_SOURCE_ID: sourceId,
    });
    const result = JSON.parse(out) as { propertyId: string; names: string[]; missing: [number, string] };
    expect(result.names).toEqual(['Installed from the tarball']);
    expect(result.missing).toEqual([404, 'notFound']);
    const stored = await clientFor(s.t, account).get(`/v1/properties/${result.propertyId}`).expect(200);
    expect(stored.body).toMatchObject({ sourceId, name: 'Installed from the tarball' });
  });
});
