/**
 * How long the webhook history is kept: one place for the API (a replay's window) and the engine
 * (retention, the record of an attempt's response snippet).
 */

/** Spec 6.1 rule 6 / 8: the event log and delivery history are kept for 90 days. */
export const RETENTION_DAYS = 90;

/** Response snippets are kept this long after their attempt, then dropped by the retention task (the attempt stays). */
export const SNIPPET_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** When this attempt's snippet is to be dropped: null when it kept none (an empty body keeps nothing worth dropping). */
export function snippetExpiry(attempt: { at: string; responseSnippet: string | null }): string | null {
  return attempt.responseSnippet ? new Date(Date.parse(attempt.at) + SNIPPET_RETENTION_MS).toISOString() : null;
}
