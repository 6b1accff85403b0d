/**
 * When and how a reminder fires (docs/reminders.md, "Firing"). Pure rules for the queue producer, the
 * processor and the sweep.
 */

/** A due reminder younger than this is left to its delayed job; older, the sweep fires it itself. */
export const DUE_GRACE_MS = 2_000;

/** Re-arm reminders due within this (at least two sweep periods), so a lost job is back before its time. */
export function rearmHorizonMs(sweepIntervalMs: number): number {
  return Math.max(2 * sweepIntervalMs, 10_000);
}

/**
 * The delayed job's id: the reminder and the date it is armed for. A moved reminder gets a new job,
 * and its old one (still waiting for the old date) finds nothing due. BullMQ refuses ':' in ids.
 */
export function dueJobId(reminderId: string, date: Date): string {
  return `${reminderId}.${date.getTime()}`;
}

/** How long the job waits: until the date, or not at all for a date already past. */
export function dueDelayMs(date: Date, nowMs: number): number {
  return Math.max(0, date.getTime() - nowMs);
}
