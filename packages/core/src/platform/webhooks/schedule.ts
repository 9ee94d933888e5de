const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;

/**
 * Waits before the 2nd to 9th attempts: the first is immediate, then 1 min, 5 min, 30 min, 2 h, 6 h and three
 * times 24 h (about three days and eight hours in all). A delivery that fails all nine is abandoned.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  6 * HOUR,
  24 * HOUR,
  24 * HOUR,
  24 * HOUR,
];

/** When to try again after `attemptsMade` failed attempts, or null when the schedule is used up. */
export function nextAttemptAt(
  now: Date,
  attemptsMade: number,
  delays: readonly number[] = RETRY_DELAYS_MS,
): Date | null {
  const delay = delays[attemptsMade - 1];
  return delay === undefined ? null : new Date(now.getTime() + delay);
}
