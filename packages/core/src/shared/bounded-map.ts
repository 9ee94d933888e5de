/**
 * A Map that keeps at most `max` entries, dropping the least recently set or read: for in-process caches whose
 * keys come from the outside (API keys, teams), so no stream of distinct keys can grow the process without bound.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Re-inserting moves the key to the end: Map iterates in insertion order, oldest first.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  *[Symbol.iterator](): IterableIterator<[K, V]> {
    yield* this.entries;
  }
}
