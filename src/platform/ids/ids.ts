import { randomFillSync } from 'node:crypto';
import { decodeTime, encodeTime, monotonicFactory, ulid } from 'ulid';

/**
 * Every id the service mints: a resource prefix and a ULID. ULIDs sort by creation
 * time (monotonic within a millisecond in one process), so ordering by id is ordering
 * by creation, and keyset pagination on id needs no second column. Each module declares
 * the kinds it mints (`idKinds` in its `<module>.declaration.ts`); the assembled
 * declarations check that no two kinds share a prefix.
 */
export interface IdKind {
  readonly prefix: string;
  /** Compiled once (the check runs on every request naming an id). */
  readonly pattern: RegExp;
}

const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';

export const idKind = (prefix: string): IdKind => ({ prefix, pattern: new RegExp(`^${prefix}_${ULID_PATTERN}$`) });

/** A module's kinds, named: `idKinds({ booking: 'bk' }).booking`. */
export function idKinds<const T extends Record<string, string>>(prefixes: T): { readonly [K in keyof T]: IdKind } {
  return Object.fromEntries(Object.entries(prefixes).map(([kind, prefix]) => [kind, idKind(prefix)])) as {
    [K in keyof T]: IdKind;
  };
}

/**
 * The ULIDs' randomness, drawn from the CSPRNG a few kilobytes at a time: ulid's default asks
 * `crypto.getRandomValues` for one byte per character, 16 calls per id, a measurable share of a
 * create's CPU. Each byte is uniform over 256 values, so `byte / 256` picks one of ulid's 32
 * characters uniformly.
 */
export function pooledRandom(poolBytes = 4096): () => number {
  const pool = Buffer.allocUnsafe(poolBytes);
  let next = poolBytes;
  return () => {
    if (next === poolBytes) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++] / 256;
  };
}

const nextUlid = monotonicFactory(pooledRandom());

export function newId(kind: IdKind): string {
  return `${kind.prefix}_${nextUlid()}`;
}

/**
 * An id whose time part is `at` (not monotonic): seeding rows of the past (tests, benchmarks), where
 * the id's time is the row's age, which is what places it in its time partition.
 */
export function newIdAt(kind: IdKind, at: Date): string {
  return `${kind.prefix}_${ulid(at.getTime(), pooledRandom(64))}`;
}

/** The first id of any kind minted at or after `at` (a partition bound): the prefix and the ULID's time, nothing after. */
export function idBoundAt(prefix: string, at: Date): string {
  return `${prefix}_${encodeTime(at.getTime(), 10)}`;
}

/** When the id was minted (its ULID's time); undefined for a value that is not a prefixed ULID. */
export function idTime(id: string): Date | undefined {
  const ulidPart = id.slice(id.indexOf('_') + 1);
  try {
    return new Date(decodeTime(ulidPart));
  } catch {
    return undefined;
  }
}

/** True when the value has the shape of an id of that kind (a cheap guard before a lookup). */
export function isIdOf(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && kind.pattern.test(value);
}
