/** The console's response headers (pure data; the middleware sets them). */

/**
 * Same-origin scripts, styles and forms only: no inline script or style, no eval, nothing from elsewhere;
 * no framing (clickjacking), no <base> tricks.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const CONSOLE_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  // The sign-in link's token must not leak to another site through Referer.
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  // Every page is a signed-in account's (several show a key or secret once): nothing is stored by a browser or proxy.
  'Cache-Control': 'no-store',
};

export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
