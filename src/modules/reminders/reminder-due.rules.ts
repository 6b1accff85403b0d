/**
 * When and how a reminder fires (docs/reminders.md, "Firing"). Pure rules for the queue producer, the
 * processor and the sweep.
 */

/** A due reminder younger than this is left to its delayed job; older, the sweep fires it itself. */
export const DUE_GRACE_MS = 2_000;

/**
 * Jobs are armed for the reminders due within this (at least two sweep periods): by the API when it
 * writes one due that soon, by every sweep for the others as they come within it (and again for one
 * whose job was lost). So Redis only ever holds the jobs of the next few seconds.
 */
export function armHorizonMs(sweepIntervalMs: number): number {
  return Math.max(2 * sweepIntervalMs, 10_000);
}

/**
 * The delayed job's id: the reminder and the date it is armed for. A moved reminder gets a new job,
 * and its old one (still waiting for the old date) finds nothing due. BullMQ refuses ':' in ids.
 */
export function dueJobId(reminderId: string, date: Date): string {
  return `${reminderId}.${date.getTime()}`;
}

/** Whether a reminder written now is due soon enough for its job to be armed at once (else the sweep arms it). */
export function isWithinArmHorizon(date: Date, nowMs: number, horizonMs: number): boolean {
  return date.getTime() - nowMs <= horizonMs;
}

/** How long the job waits: until the date, or not at all for a date already past. */
export function dueDelayMs(date: Date, nowMs: number): number {
  return Math.max(0, date.getTime() - nowMs);
}
