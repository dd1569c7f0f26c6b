import type { Database } from '../platform/db/engine.ts';
import type { CacheSubscriber, InvalidationChannel } from '../platform/db/invalidation.ts';
import { errorSummary, type Logger } from '../platform/logger.ts';
import { findKeyRow, usableKeys, type KeyRecord } from './keys.ts';

/** What the cache knows of a digest: a usable key, surely no usable key, or nothing (ask the database). */
export type KeyLookup = { known: true; key: KeyRecord } | { known: true; key: undefined } | { known: false };

const UNSURE: KeyLookup = { known: false };
const RELOAD_AFTER_MS = 1_000;

/**
 * Every usable (not revoked) API key of the control database, by digest, in memory: loaded when the
 * invalidation channel listens, then kept current by its notifications (each re-reads its one key).
 * Whole rather than filled on use, so that "no such key" needs no round trip either: the throttle
 * refuses a blocked address's bad keys without a lookup, while every valid key — even one this
 * process never saw — still passes (src/accounts/auth.ts). Memory: about 0.5 KB a key. Found by the
 * SHA-256 of the secret, as in the database: a map key the caller cannot steer.
 *
 * A notified digest is "unsure" until its re-read lands, so a request in between asks the database
 * (a revocation counts from the moment its notification arrives). Re-reads of one digest may land out
 * of order, so only the latest notification's re-read is kept; the initial load skips digests
 * notified while it ran, whose own re-reads are newer than its snapshot.
 */
export class KeyCache implements CacheSubscriber {
  private readonly byDigest = new Map<string, KeyRecord>();
  /** Digests notified and not yet re-read, with the sequence number of their latest notification. */
  private readonly changing = new Map<string, number>();
  private sequence = 0;
  /** Bumped by a flush: a load or re-read begun before it is discarded. */
  private epoch = 0;
  private loaded = false;
  private notifiedDuringLoad: Set<string> | null = null;

  constructor(
    private readonly control: Database,
    private readonly channel: InvalidationChannel,
    private readonly logger: Logger,
  ) {}

  lookup(digest: string): KeyLookup {
    if (!this.loaded || !this.channel.listening || this.changing.has(digest)) return UNSURE;
    return { known: true, key: this.byDigest.get(digest) };
  }

  get size(): number {
    return this.byDigest.size;
  }

  invalidate(digest: string): void {
    const sequence = ++this.sequence;
    this.changing.set(digest, sequence);
    this.byDigest.delete(digest);
    this.notifiedDuringLoad?.add(digest);
    void this.reread(digest, sequence, this.epoch);
  }

  flush(): void {
    this.epoch++;
    this.loaded = false;
    this.notifiedDuringLoad = null;
    this.byDigest.clear();
    this.changing.clear();
  }

  resumed(): void {
    void this.load(this.epoch);
  }

  private async reread(digest: string, sequence: number, epoch: number): Promise<void> {
    try {
      const row = await findKeyRow(this.control.db, digest);
      if (epoch !== this.epoch || this.changing.get(digest) !== sequence) return;
      if (row && !row.revokedAt) this.byDigest.set(digest, row);
      this.changing.delete(digest);
    } catch (err) {
      // Left "unsure": requests with this key ask the database until the next load.
      this.logger.warn({ err: errorSummary(err) }, 'could not re-read a changed API key');
    }
  }

  private async load(epoch: number): Promise<void> {
    this.notifiedDuringLoad = new Set();
    try {
      const keys = await usableKeys(this.control.db);
      if (epoch !== this.epoch) return;
      for (const [digest, key] of keys) {
        if (!this.notifiedDuringLoad.has(digest) && !this.changing.has(digest)) this.byDigest.set(digest, key);
      }
      this.notifiedDuringLoad = null;
      this.loaded = true;
    } catch (err) {
      if (epoch !== this.epoch) return;
      this.logger.warn({ err: errorSummary(err) }, 'could not load the API keys; asking the database until loaded');
      setTimeout(() => {
        if (epoch === this.epoch && this.channel.listening) void this.load(epoch);
      }, RELOAD_AFTER_MS).unref();
    }
  }
}
