/**
 * Statements of one transaction sent together (postgres.js pipelines them on the transaction's connection).
 * Unlike `Promise.all`, it answers only once every one has settled: a failure must not end the transaction (and
 * hand its connection back) while a statement after it is still to be sent, which would then run on its own.
 */
export async function together<T extends readonly unknown[]>(
  ...work: { [K in keyof T]: Promise<T[K]> | T[K] }
): Promise<T> {
  const settled = await Promise.allSettled(work);
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
