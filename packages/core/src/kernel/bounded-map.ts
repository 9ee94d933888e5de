/**
 * A Map that keeps at most `max` entries, dropping the least recently set or read: for in-process caches whose
 * keys come from the outside (API keys, teams), so no stream of distinct keys can grow the process without bound.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();
  /** The key at the end of the order (the most recently used), which a read need not move. */
  private newest: K | undefined;

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined && key !== this.newest) {
      // Re-inserting moves the key to the end: Map iterates in insertion order, oldest first. A busy key read
      // again and again is already there, and moving it would only churn the table.
      this.entries.delete(key);
      this.entries.set(key, value);
      this.newest = key;
    }
    return value;
  }

  set(key: K, value: V): void {
    if (key === this.newest) {
      this.entries.set(key, value);
      return;
    }
    this.entries.delete(key);
    this.entries.set(key, value);
    this.newest = key;
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
    if (key === this.newest) this.newest = undefined;
  }

  get size(): number {
    return this.entries.size;
  }

  *[Symbol.iterator](): IterableIterator<[K, V]> {
    yield* this.entries;
  }
}
