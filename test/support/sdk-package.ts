import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The TypeScript SDK as a project outside the repository gets it: `npm pack` of clients/typescript, and a
 * scratch project that installs the tarball with npm alone, offline.
 */

const ROOT = join(__dirname, '..', '..');
const SDK = join(ROOT, 'clients', 'typescript');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command's outcome (never throws on a non-zero exit), with npm's own variables of a parent `npm test` left out. */
export function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}, timeoutMs = 180_000): Promise<Run> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('npm_') || name === 'npm_config_cache'),
  );
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env: { ...inherited, ...env }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

export async function must(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** `npm pack` of the SDK into `dir` (its prepack builds it): the tarball's file name and its package.json. */
export async function packSdk(
  dir: string,
): Promise<{ tarball: string; manifest: { name: string; version: string; dependencies?: Record<string, string> } }> {
  const tarball = (await must('npm', ['pack', '--silent', '--pack-destination', dir], SDK)).trim().split('\n').pop()!;
  const manifest = JSON.parse(await must('tar', ['-xzOf', join(dir, tarball), 'package/package.json'], dir));
  return { tarball, manifest };
}

type LockEntry = { version: string; dependencies?: Record<string, string>; [key: string]: unknown };

/**
 * The scratch project's package.json and package-lock.json: the tarball and `devDependencies`, every other
 * package pinned at the version the repository's lock resolved, found from what each package declares
 * (the tarball's own `dependencies` first). npm installs offline from its cache only with a lock: `npm ci`
 * caches the packages' tarballs, not the registry's metadata a lockless install resolves versions with.
 */
export function writeConsumerProject(
  dir: string,
  sdk: { tarball: string; manifest: { name: string; version: string; dependencies?: Record<string, string> } },
  devDependencies: string[],
): void {
  const rootLock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const resolvedFrom = (name: string): LockEntry => {
    const entry = rootLock.packages[`node_modules/${name}`];
    if (!entry) throw new Error(`the repository's lock has no ${name}`);
    return entry;
  };
  const packages: Record<string, object> = {};
  const add = (name: string, dev: boolean): void => {
    if (packages[`node_modules/${name}`]) return;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = resolvedFrom(name);
    packages[`node_modules/${name}`] = dev ? { ...entry, dev: true } : entry;
    for (const dependency of Object.keys(entry.dependencies ?? {})) add(dependency, dev);
  };
  for (const dependency of Object.keys(sdk.manifest.dependencies ?? {})) add(dependency, false);
  for (const dependency of devDependencies) add(dependency, true);

  const file = `file:${sdk.tarball}`;
  const devVersions = Object.fromEntries(devDependencies.map((name) => [name, resolvedFrom(name).version]));
  const pkg = {
    name: 'sdk-consumer',
    version: '1.0.0',
    private: true,
    dependencies: { [sdk.manifest.name]: file },
    devDependencies: devVersions,
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  const lock = {
    name: pkg.name,
    version: pkg.version,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: pkg.name, version: pkg.version, dependencies: pkg.dependencies, devDependencies: devVersions },
      [`node_modules/${sdk.manifest.name}`]: { version: sdk.manifest.version, resolved: file, dependencies: sdk.manifest.dependencies },
      ...packages,
    },
  };
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock, null, 2));
}
