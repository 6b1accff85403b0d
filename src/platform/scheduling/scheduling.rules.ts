import { createHash } from 'node:crypto';

/** First int4 of every periodic task's advisory lock: keeps them apart from any other advisory lock in the database. */
export const SCHEDULER_LOCK_CLASS = 0x53434844;

/** Share of the interval added at random to each wait, so workers started together do not all wake together. */
export const JITTER_SHARE = 0.1;

/** The advisory lock of a task: (SCHEDULER_LOCK_CLASS, the first 4 bytes of SHA-256 of its name as a signed int4). */
export function advisoryLockKey(taskName: string): [number, number] {
  return [SCHEDULER_LOCK_CLASS, createHash('sha256').update(taskName, 'utf8').digest().readInt32BE(0)];
}

/**
 * How long a worker waits before it next tries a task: `dueInMs` (when the task next comes due:
 * the interval after a run, what is left of it when another worker ran it lately) plus up to
 * JITTER_SHARE of the interval at random. `random` is in [0, 1).
 */
export function nextCheckDelayMs(dueInMs: number, intervalMs: number, random: number): number {
  return Math.max(0, Math.round(dueInMs)) + Math.floor(random * intervalMs * JITTER_SHARE);
}
