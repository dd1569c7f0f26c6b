import type { CacheSubscriber, InvalidationChannel } from './db/invalidation.ts';

/**
 * Records read once and kept in memory until their row changes (issue 28): a business by id, an
 * account's limits, the plans. Filled on a miss, dropped on its notification, bounded (the least
 * recently used goes first). Answers from memory only while the channel listens.
 *
 * The race "read from the database → the row changes and its notification arrives → the stale value
 * is put in the cache" is closed by a generation: every notification, flush or reconnect bumps it,
 * and a read fills the cache only when the generation is the one it started under. A read that lost
 * the race still answers its caller (it was true when read), it just is not kept.
 */
export class RecordCache<V> implements CacheSubscriber {
  private readonly entries = new Map<string, V>();
  private generation = 0;

  constructor(
    private readonly channel: InvalidationChannel,
    private readonly maxEntries: number,
  ) {}

  /** The cached record, else `read()` (undefined: no such record, nothing kept). */
  async get(id: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    if (this.channel.listening) {
      const hit = this.entries.get(id);
      if (hit !== undefined) {
        this.entries.delete(id);
        this.entries.set(id, hit); // most recently used last
        return hit;
      }
    }
    const generation = this.generation;
    const value = await read();
    if (value !== undefined && generation === this.generation && this.channel.listening) {
      this.entries.set(id, value);
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }

  get size(): number {
    return this.entries.size;
  }

  invalidate(id: string): void {
    this.generation++;
    this.entries.delete(id);
  }

  flush(): void {
    this.generation++;
    this.entries.clear();
  }
}
