import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { assertValidBlobKey, BlobKeyError, BlobStore, META_SUFFIX } from './blob-store';

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/**
 * Blob store in a local directory (BLOB_STORAGE_DIR): `<root>/<key>` holds the bytes and
 * `<root>/<key>.meta.json` the content type. Each file is written to a temp file in the same
 * directory, flushed, then renamed over the target, so a reader never sees a partial file.
 * Meta is written before the bytes and deleted after them, so a present blob always has its type
 * (only a concurrent overwrite with a different type can briefly pair new type and old bytes).
 */
export class LocalDirectoryBlobStore implements BlobStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    await writeAtomically(`${path}${META_SUFFIX}`, Buffer.from(JSON.stringify({ contentType })));
    await writeAtomically(path, bytes);
  }

  async get(key: string): Promise<{ bytes: Buffer; contentType: string } | undefined> {
    const path = this.pathOf(key);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    return { bytes, contentType: await readContentType(`${path}${META_SUFFIX}`) };
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    await rm(path, { force: true });
    await rm(`${path}${META_SUFFIX}`, { force: true });
  }

  private pathOf(key: string): string {
    assertValidBlobKey(key);
    const path = resolve(this.root, key);
    // Belt and braces: the key rules already forbid it, but never touch anything outside the root.
    if (!path.startsWith(this.root + sep)) throw new BlobKeyError(key, 'resolves outside the store');
    return path;
  }
}

async function writeAtomically(path: string, data: Buffer): Promise<void> {
  // Leading dot: no valid key segment starts with one, so temp files never collide with keys.
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

async function readContentType(metaPath: string): Promise<string> {
  try {
    const meta = JSON.parse(await readFile(metaPath, 'utf8')) as { contentType?: unknown };
    return typeof meta.contentType === 'string' && meta.contentType !== '' ? meta.contentType : DEFAULT_CONTENT_TYPE;
  } catch {
    return DEFAULT_CONTENT_TYPE;
  }
}

/** ENOENT, or ENOTDIR when a path segment is a file (key `a/b` while `a` is a blob). */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
