import { json } from 'express';
import type { NextFunction, Request, Response } from 'express';
import { DomainError } from '../errors/domain-error';
import { displayPath, jsonPointer } from './validation-issues';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Far deeper than any request shape; stops recursive validation from overflowing the stack (a 500). */
export const MAX_BODY_DEPTH = 32;
const JSON_TYPES = ['application/json', 'application/*+json'];
const MULTIPART_TYPE = 'multipart/form-data';
const LONE_SURROGATE = /\p{Surrogate}/u;

const parseJson = json({ limit: MAX_BODY_BYTES, type: JSON_TYPES, strict: false });

/** Iterative, so the check itself cannot overflow the stack. */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > maxDepth) return true;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * The first string (value or key) PostgreSQL text cannot hold as sent: U+0000, or a lone UTF-16
 * surrogate ("\ud800" is valid JSON but no character; the driver would store U+FFFD instead,
 * silently changing the value). Iterative, like nestsDeeperThan.
 */
export function firstUnstorableString(value: unknown): { path: Array<string | number>; reason: string } | undefined {
  // With the u flag a surrogate pair is one code point, so only a lone surrogate matches.
  const unstorable = (text: string) =>
    text.includes('\u0000') ? 'contains U+0000' : LONE_SURROGATE.test(text) ? 'contains a lone UTF-16 surrogate' : undefined;
  const pending: Array<[unknown, Array<string | number>]> = [[value, []]];
  while (pending.length > 0) {
    const [node, path] = pending.pop()!;
    if (typeof node === 'string') {
      const reason = unstorable(node);
      if (reason) return { path, reason };
    } else if (Array.isArray(node)) {
      node.forEach((child, index) => pending.push([child, [...path, index]]));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        const reason = unstorable(key);
        if (reason) return { path: [...path, key], reason: `has a name that ${reason}` };
        pending.push([child, [...path, key]]);
      }
    }
  }
  return undefined;
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** The 415 for a body this route cannot read. */
export function unsupportedMediaType(req: Request): DomainError {
  return new DomainError(
    'unsupported_media_type',
    'unsupportedMediaType',
    `Content-Type ${req.headers['content-type'] ?? '(none)'} is not supported; send application/json`,
  );
}

/** Maps body-parser's failures to domain errors, so the filter renders them like any other. */
function toDomainError(error: { type?: string; message?: string }): DomainError {
  switch (error.type) {
    case 'entity.parse.failed':
      return new DomainError('invalid', 'malformedJson', `The request body is not valid JSON: ${error.message ?? ''}`.trim());
    case 'entity.too.large':
      return new DomainError('payload_too_large', 'payloadTooLarge', `The request body exceeds the limit of ${MAX_BODY_BYTES} bytes`);
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new DomainError('unsupported_media_type', 'unsupportedMediaType', error.message ?? 'Unsupported body encoding');
    default:
      return new DomainError('invalid', 'badRequest', 'The request body could not be read');
  }
}

/**
 * Request bodies are JSON (spec convention 1), except multipart/form-data on the routes that take
 * it (the job comment route), which is left unread here for multer. A body of any other type is a 415,
 * malformed JSON a 400 and an oversized body a 413, all as problem documents.
 * The error is not answered here but kept on the request (`bodyError`) and thrown by
 * StrictRequestGuard once the auth guard has run: a request without a valid key is
 * a 401 whatever its body, and a keyed one is rate limited and carries the limit headers.
 * Run by the entry middleware (src/http-entry.middleware.ts) after the key check.
 */
export function readJsonBody(
  req: Request & { bodyError?: DomainError; multipartPending?: boolean },
  res: Response,
  next: NextFunction,
): void {
  if (!hasBody(req)) return next();
  const fail = (error: DomainError) => {
    req.body = undefined;
    req.bodyError = error;
    next();
  };
  if (req.is(MULTIPART_TYPE)) {
    // Left unread: a route that takes it parses it with multer (MultipartFile); StrictRequestGuard refuses it elsewhere.
    req.multipartPending = true;
    return next();
  }
  if (!req.is(JSON_TYPES)) {
    // Drain the unread body so the connection stays usable for the answer.
    req.resume();
    return fail(unsupportedMediaType(req));
  }
  parseJson(req, res, (error?: unknown) => {
    if (error) return fail(toDomainError(error as { type?: string }));
    if (nestsDeeperThan(req.body, MAX_BODY_DEPTH)) {
      return fail(
        new DomainError('invalid', 'bodyTooDeep', `The request body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`),
      );
    }
    const unstorable = firstUnstorableString(req.body);
    if (unstorable) {
      const at = displayPath(unstorable.path) || 'the body';
      const detail = `${at} ${unstorable.reason}, which cannot be stored`;
      return fail(new DomainError('invalid', 'invalidCharacters', detail, { errors: [{ pointer: jsonPointer(unstorable.path), detail }] }));
    }
    next();
  });
}
