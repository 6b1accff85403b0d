import { StreamableFile } from '@nestjs/common';
import type { Response } from 'express';

/**
 * A stored image (a property picture, a chat comment's picture) as a route's answer: its bytes with their
 * content type, cacheable forever but only privately (the bytes never change; the content is behind a key),
 * never sniffed as another type nor run as a page. The headers go on this answer only, never on a problem.
 */
export function storedImage(res: Response, image: { bytes: Buffer; contentType: string }): StreamableFile {
  res.setHeader('Cache-Control', 'private, max-age=31536000, immutable');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  return new StreamableFile(image.bytes, { type: image.contentType, length: image.bytes.length });
}
