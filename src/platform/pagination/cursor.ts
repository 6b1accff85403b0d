import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../errors/domain-error';

export type CursorKey = ReadonlyArray<string | number>;

const TAG_BYTES = 12;

export class InvalidCursorError extends ValidationError {
  constructor(detail = 'The cursor is malformed, tampered with or from another list; restart the listing without it') {
    super(detail, [], 'invalidCursor');
  }
}

/**
 * Opaque keyset cursors: base64url(JSON of the last row's sort key) plus a
 * truncated HMAC, so a client can neither read meaning into a cursor nor forge one.
 * `scope` binds a cursor to one list (a properties cursor is refused by bookings).
 */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(scope: string, key: CursorKey): string {
    const payload = Buffer.from(JSON.stringify(key)).toString('base64url');
    return `${payload}.${this.tag(scope, payload).toString('base64url')}`;
  }

  decode(scope: string, cursor: string): CursorKey {
    const [payload, tag, extra] = cursor.split('.');
    if (!payload || !tag || extra !== undefined) throw new InvalidCursorError();
    const given = Buffer.from(tag, 'base64url');
    const expected = this.tag(scope, payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new InvalidCursorError();
    const key: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (!Array.isArray(key) || !key.every((v) => typeof v === 'string' || typeof v === 'number')) throw new InvalidCursorError();
    return key;
  }

  private tag(scope: string, payload: string): Buffer {
    return createHmac('sha256', this.secret).update(`${scope}\n${payload}`).digest().subarray(0, TAG_BYTES);
  }
}

/**
 * The key of a list sorted by a date-time then id (bookings, reminders, jobs): `[ISO date-time, id]`.
 * A key of any other shape (a cursor minted for another list is already refused by its tag) is invalid.
 */
export function dateIdKeyOf(key: CursorKey): { at: string; id: string } {
  const [at, id, extra] = key;
  if (typeof at !== 'string' || typeof id !== 'string' || extra !== undefined || Number.isNaN(Date.parse(at))) {
    throw new InvalidCursorError();
  }
  return { at, id };
}
