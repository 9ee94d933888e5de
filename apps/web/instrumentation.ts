/** Opens the database (and runs migrations) when the server starts, not on the first request. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { getRubricon } = await import("@rubricon/api");
    await getRubricon();
  }
}
