/**
 * What an isolate remembers for a short time: entries younger than `ttlMs`, at most `maxEntries`
 * (the least recently used goes first). The one mechanism behind the per-isolate caches (API keys,
 * entitlement checks; docs/decisions.md, Auth and tenancy): each adds what its entries mean and
 * when they are dropped.
 *
 * A read that an invalidation overtook must not be stored: take `mark()` before reading, pass it
 * to `set`, and the entry is dropped if anything was removed in between.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; storedAt: number }>();
  private epoch = 0;

  constructor(private readonly options: { ttlMs: number; maxEntries: number; now: () => number }) {}

  /** The entry while it is younger than the TTL (an entry from a clock that went back is dropped). */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const age = this.options.now() - entry.storedAt;
    if (age >= this.options.ttlMs || age < 0) {
      this.entries.delete(key);
      return undefined;
    }
    // Most recently used last, so eviction takes the oldest use.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  mark(): number {
    return this.epoch;
  }

  set(key: string, value: V, mark?: number): void {
    if (mark !== undefined && mark !== this.epoch) return;
    this.entries.delete(key);
    this.entries.set(key, { value, storedAt: this.options.now() });
    while (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Drops every entry `drop` picks, and makes reads begun before now unstorable. */
  invalidate(drop: (value: V, key: string) => boolean): void {
    this.epoch += 1;
    for (const [key, entry] of this.entries) if (drop(entry.value, key)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
