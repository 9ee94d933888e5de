/** Retries after the first attempt, at most: the API contract caps a request at five attempts. */
export const MAX_RETRIES = 4;
const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A longer `Retry-After` than this is not waited for; the error is thrown instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Exponential backoff with full jitter: uniform in [0, min(cap, base * 2^attempt)). */
export function backoffDelay(attempt: number): number {
  return Math.random() * Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** attempt);
}

/** `Retry-After` in milliseconds, from delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with `onAbort()` as soon as `signal` fires. */
export function sleep(ms: number, signal: AbortSignal | undefined, onAbort: () => unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(onAbort());
      return;
    }
    const abort = () => {
      clearTimeout(timer);
      reject(onAbort());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", abort, { once: true });
  });
}
