/**
 * Picture rules, pure: how a failed download is explained to the client. What counts as an image
 * (by its bytes, never by the source's Content-Type header) is platform/storage/image-type.ts.
 */

/** Why a picture could not be taken: the download failures of SafeDownloader plus "not an image". */
export type PictureFailure =
  'unreachable' | 'timeout' | 'too_large' | 'http_status' | 'forbidden_url' | 'too_many_redirects' | 'not_an_image';

/**
 * The problem detail for a failure. `reason` is the downloader's human text
 * ("the URL did not answer within 10 s", "host resolves to a non-public address").
 */
export function pictureFailureDetail(failure: PictureFailure, reason: string): string {
  if (failure === 'not_an_image') return 'sourceUrl is not an image (jpeg, png, webp or gif)';
  if (failure === 'forbidden_url') return `sourceUrl is not allowed: ${reason}`;
  return `sourceUrl could not be downloaded: ${reason}`;
}
