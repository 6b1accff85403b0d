import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { APP_CONFIG } from '../../config/config.module';
import { assertValidBlobKey, BLOB_STORE, BlobKeyError, BlobStore } from './blob-store';
import { LocalDirectoryBlobStore } from './local-directory-blob-store';
import { StorageModule } from './storage.module';

describe('LocalDirectoryBlobStore', () => {
  let root: string;
  let store: LocalDirectoryBlobStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'blob-store-'));
    store = new LocalDirectoryBlobStore(root);
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('stores bytes with their content type and reads them back', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]);
    await store.put('pictures/acct_1/pic_1', bytes, 'image/png');
    const found = await store.get('pictures/acct_1/pic_1');
    expect(found?.contentType).toBe('image/png');
    expect(found?.bytes.equals(bytes)).toBe(true);
    expect(await readFile(join(root, 'pictures/acct_1/pic_1'))).toEqual(bytes);
  });

  it('stores empty blobs', async () => {
    await store.put('empty', Buffer.alloc(0), 'text/plain');
    expect(await store.get('empty')).toEqual({ bytes: Buffer.alloc(0), contentType: 'text/plain' });
  });

  it('returns undefined for a missing key', async () => {
    expect(await store.get('pictures/none')).toBeUndefined();
    await store.put('a', Buffer.from('x'), 'text/plain');
    expect(await store.get('a/b')).toBeUndefined(); // a path segment is a file
  });

  it('replaces an existing blob and its content type', async () => {
    await store.put('k', Buffer.from('one'), 'image/png');
    await store.put('k', Buffer.from('two!'), 'image/jpeg');
    expect(await store.get('k')).toEqual({ bytes: Buffer.from('two!'), contentType: 'image/jpeg' });
  });

  it('leaves no temp files behind', async () => {
    await store.put('dir/k', Buffer.from('one'), 'image/png');
    await store.put('dir/k', Buffer.from('two'), 'image/png');
    expect((await readdir(join(root, 'dir'))).sort()).toEqual(['k', 'k.meta.json']);
  });

  it('falls back to application/octet-stream when the meta file is missing or corrupt', async () => {
    await store.put('k', Buffer.from('x'), 'image/png');
    await writeFile(join(root, 'k.meta.json'), '{not json');
    expect((await store.get('k'))?.contentType).toBe('application/octet-stream');
    await rm(join(root, 'k.meta.json'));
    expect((await store.get('k'))?.contentType).toBe('application/octet-stream');
  });

  it('deletes bytes and meta; deleting a missing key is not an error', async () => {
    await store.put('pictures/p', Buffer.from('x'), 'image/png');
    await store.delete('pictures/p');
    expect(await store.get('pictures/p')).toBeUndefined();
    await expect(stat(join(root, 'pictures/p.meta.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(store.delete('pictures/p')).resolves.toBeUndefined();
    await expect(store.delete('never/existed/at/all')).resolves.toBeUndefined();
  });

  it('serialises concurrent writers to whole values', async () => {
    const values = Array.from({ length: 20 }, (_, i) => Buffer.alloc(64 * 1024, i));
    await Promise.all(values.map((value) => store.put('race', value, 'application/octet-stream')));
    const found = await store.get('race');
    expect(values.some((value) => value.equals(found!.bytes))).toBe(true);
    expect(await readdir(root)).toEqual(expect.arrayContaining(['race', 'race.meta.json']));
    expect((await readdir(root)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it.each([
    ['', 'empty'],
    ['../escape', 'parent segment'],
    ['a/../../escape', 'parent segment inside'],
    ['/etc/passwd', 'absolute'],
    ['a//b', 'empty segment'],
    ['a/', 'trailing slash'],
    ['./a', 'dot segment'],
    ['a/.hidden', 'hidden segment (temp-file namespace)'],
    ['..', 'parent'],
    ['a\\b', 'backslash'],
    ['a b', 'space'],
    ['ä', 'non-ASCII'],
    ['a%2e%2e', 'percent'],
    ['a\0b', 'NUL'],
    ['pic.meta.json', 'meta suffix'],
    ['x'.repeat(513), 'too long'],
  ])('refuses the key %j (%s) on every operation', async (key) => {
    expect(() => assertValidBlobKey(key)).toThrow(BlobKeyError);
    await expect(store.put(key, Buffer.from('x'), 'text/plain')).rejects.toBeInstanceOf(BlobKeyError);
    await expect(store.get(key)).rejects.toBeInstanceOf(BlobKeyError);
    await expect(store.delete(key)).rejects.toBeInstanceOf(BlobKeyError);
  });

  it.each(['a', 'pictures/acct_01J/pic_01J.jpg', 'A-Z_0.9/x-y', 'x'.repeat(512)])('accepts the key %s', (key) => {
    expect(() => assertValidBlobKey(key)).not.toThrow();
  });

  it('is provided as BLOB_STORE by StorageModule, rooted at BLOB_STORAGE_DIR', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [StorageModule] })
      .useMocker((token) => (token === APP_CONFIG ? { blobStorageDir: root } : undefined))
      .compile();
    const provided = moduleRef.get<BlobStore>(BLOB_STORE);
    expect(provided).toBeInstanceOf(LocalDirectoryBlobStore);
    await provided.put('via-module', Buffer.from('hi'), 'text/plain');
    expect(await readFile(join(root, 'via-module'), 'utf8')).toBe('hi');
    await moduleRef.close();
  });
});
