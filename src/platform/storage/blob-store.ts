/** Where stored copies (property pictures) live; the API and the worker share it. */
export interface BlobStore {
  /** Stores (or replaces) the bytes under `key`; readers see the old or the new value, never a partial one. */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** undefined when nothing is stored under `key`. */
  get(key: string): Promise<{ bytes: Buffer; contentType: string } | undefined>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
}

export const BLOB_STORE = Symbol('BLOB_STORE');

/** Thrown for a key that could escape the store or collide with its bookkeeping files (a programming error). */
export class BlobKeyError extends Error {
  constructor(key: string, reason: string) {
    super(`Invalid blob key ${JSON.stringify(key)}: ${reason}`);
    this.name = 'BlobKeyError';
  }
}

const KEY_CHARS = /^[A-Za-z0-9_./-]+$/;
const MAX_KEY_LENGTH = 512;
export const META_SUFFIX = '.meta.json';

/**
 * Keys are relative slash-separated paths such as `pictures/acct_…/pic_…`: only [A-Za-z0-9_./-],
 * no empty segments, no segment starting with a dot (so no `.`/`..` and no clash with temp files),
 * and not ending in `.meta.json` (reserved for the content type beside the bytes).
 */
export function assertValidBlobKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new BlobKeyError(String(key), 'must be a non-empty string');
  if (key.length > MAX_KEY_LENGTH) throw new BlobKeyError(key, `must be at most ${MAX_KEY_LENGTH} characters`);
  if (!KEY_CHARS.test(key)) throw new BlobKeyError(key, 'may only contain A-Z a-z 0-9 _ . / -');
  const segments = key.split('/');
  if (segments.some((segment) => segment === '')) throw new BlobKeyError(key, 'must be relative, without empty segments');
  if (segments.some((segment) => segment.startsWith('.'))) throw new BlobKeyError(key, 'segments must not start with a dot');
  if (key.endsWith(META_SUFFIX)) throw new BlobKeyError(key, `must not end with ${META_SUFFIX}`);
}
