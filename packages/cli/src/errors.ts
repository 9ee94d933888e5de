/** Bad usage: an unknown flag, a missing argument, an unreadable or invalid file. Exits 2; nothing was sent. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const EXIT_OK = 0;
export const EXIT_API_ERROR = 1;
export const EXIT_USAGE = 2;
