import { sql } from 'drizzle-orm';
import type { Database } from './db/engine.ts';
import { queryOne } from './db/sql.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the next request would be allowed (0 when allowed). */
  retryAfterMs: number;
}

export interface RateLimiter {
  hit(key: string, nowMs: number): Promise<RateDecision>;
}

/** A limiter that can also tell, without recording anything, whether the next hit would be refused. */
export interface PeekableRateLimiter extends RateLimiter {
  peek(key: string, nowMs: number): Promise<RateDecision>;
}

/**
 * True sliding window, kept as the log of the last `limit` accepted request times:
 * a request is allowed when fewer than `limit` were accepted in the last `windowMs`.
 */
export class MemoryRateLimiter implements PeekableRateLimiter {
  private logs = new Map<string, number[]>();
  private lastSweepMs = 0;
  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly sweepAbove = 10_000,
  ) {}

  async hit(key: string, nowMs: number): Promise<RateDecision> {
    return this.hitSync(key, nowMs);
  }

  async peek(key: string, nowMs: number): Promise<RateDecision> {
    const log = (this.logs.get(key) ?? []).filter((t) => t > nowMs - this.windowMs);
    if (log.length < this.limit) return { allowed: true, limit: this.limit, remaining: this.limit - log.length, retryAfterMs: 0 };
    return { allowed: false, limit: this.limit, remaining: 0, retryAfterMs: log[log.length - this.limit] + this.windowMs - nowMs };
  }

  /** Keys seen once (an address, a key id) would otherwise stay forever: idle ones are dropped now and then. */
  private sweep(nowMs: number): void {
    if (this.logs.size <= this.sweepAbove || nowMs - this.lastSweepMs < this.windowMs) return;
    this.lastSweepMs = nowMs;
    for (const [k, log] of this.logs) if (log.length === 0 || log[log.length - 1] <= nowMs - this.windowMs) this.logs.delete(k);
  }

  hitSync(key: string, nowMs: number): RateDecision {
    this.sweep(nowMs);
    const log = (this.logs.get(key) ?? []).filter((t) => t > nowMs - this.windowMs);
    if (log.length < this.limit) {
      log.push(nowMs);
      this.logs.set(key, log);
      return { allowed: true, limit: this.limit, remaining: this.limit - log.length, retryAfterMs: 0 };
    }
    this.logs.set(key, log);
    return { allowed: false, limit: this.limit, remaining: 0, retryAfterMs: log[log.length - this.limit] + this.windowMs - nowMs };
  }
}

/**
 * The same algorithm in PostgreSQL, for several processes sharing a server. Limits up to this many a
 * window keep the exact log of accepted times (rate_limit_hit); larger ones count per second (table
 * rate_limit_seconds, migration 0013), whose cost does not grow with the limit. A hit then counts for
 * one window plus at most a second: never more than the limit pass.
 */
export const EXACT_LOG_LIMIT = 1000;

/**
 * Under a large limit a process claims up to limit/6000 hits of the current second at once
 * (rate_limit_take_seconds, migration 0025) and spends them without a round trip until the second ends.
 * Claimed hits count as used, so never more than the limit pass; a process loses what it claimed and did
 * not spend in the second: under 1% of a window's limit.
 */
const CLAIM_SHARE = 6000;

interface Claim {
  second: number;
  left: number;
  /** What the window had left for others when this claim was taken. */
  remaining: number;
}

export class PostgresRateLimiter implements PeekableRateLimiter {
  private readonly perSecond: boolean;
  private readonly claimSize: number;
  private readonly claims = new Map<string, Claim>();
  private readonly claiming = new Map<string, Promise<RateDecision | null>>();
  constructor(
    private readonly database: Database,
    private readonly limit: number,
    private readonly windowMs = 60_000,
  ) {
    this.perSecond = limit > EXACT_LOG_LIMIT;
    this.claimSize = Math.max(1, Math.floor(limit / CLAIM_SHARE));
  }

  async hit(key: string, nowMs: number): Promise<RateDecision> {
    if (!this.perSecond) {
      const r = await queryOne<{ allowed: boolean; remaining: number; retry_after_ms: number }>(
        this.database.db,
        sql`SELECT * FROM rate_limit_hit(${key}, ${nowMs}, ${this.windowMs}, ${this.limit})`,
      );
      return { allowed: r!.allowed, limit: this.limit, remaining: r!.remaining, retryAfterMs: Number(r!.retry_after_ms) };
    }
    for (;;) {
      const spent = this.spendClaimed(key, nowMs);
      if (spent) return spent;
      // One claim at a time per key in this process: the others wait for it, then spend from it.
      let claiming = this.claiming.get(key);
      if (!claiming) {
        claiming = this.claim(key, nowMs).finally(() => this.claiming.delete(key));
        this.claiming.set(key, claiming);
      }
      const refused = await claiming;
      if (refused) return refused;
    }
  }

  /** This process's claim on the key's current second, while hits of it are left. */
  private liveClaim(key: string, nowMs: number): Claim | undefined {
    const c = this.claims.get(key);
    return c && c.second === Math.floor(nowMs / 1000) && c.left > 0 ? c : undefined;
  }

  private spendClaimed(key: string, nowMs: number): RateDecision | null {
    const c = this.liveClaim(key, nowMs);
    if (!c) return null;
    c.left--;
    return { allowed: true, limit: this.limit, remaining: c.remaining + c.left, retryAfterMs: 0 };
  }

  /** One round trip: takes hits of this second for the key (kept in `claims`); answers the refusal when none are left. */
  private async claim(key: string, nowMs: number): Promise<RateDecision | null> {
    const r = await queryOne<{ granted: number; remaining: number; retry_after_ms: number }>(
      this.database.db,
      sql`SELECT * FROM rate_limit_take_seconds(${key}, ${nowMs}, ${this.windowMs}, ${this.limit}, ${this.claimSize})`,
    );
    if (r!.granted <= 0) return { allowed: false, limit: this.limit, remaining: 0, retryAfterMs: Number(r!.retry_after_ms) };
    const second = Math.floor(nowMs / 1000);
    if (this.claims.size > 10_000) for (const [k, c] of this.claims) if (c.second < second) this.claims.delete(k);
    this.claims.set(key, { second, left: r!.granted, remaining: r!.remaining });
    return null;
  }

  /** Reads the window the hit function keeps (same table, same arithmetic) without recording a hit. */
  async peek(key: string, nowMs: number): Promise<RateDecision> {
    // Hits this process claimed and has not spent count as used in the table, yet the next hit here passes.
    const claimed = this.liveClaim(key, nowMs);
    if (claimed) return { allowed: true, limit: this.limit, remaining: claimed.remaining + claimed.left, retryAfterMs: 0 };
    if (this.perSecond) {
      const r = await queryOne<{ used: number; retry_after_ms: number }>(
        this.database.db,
        sql`SELECT used, retry_after_ms FROM rate_limit_seconds_state(${key}, ${nowMs}, ${this.windowMs}, ${this.limit})`,
      );
      const used = Number(r!.used);
      if (used < this.limit) return { allowed: true, limit: this.limit, remaining: this.limit - used, retryAfterMs: 0 };
      return { allowed: false, limit: this.limit, remaining: 0, retryAfterMs: Number(r!.retry_after_ms) };
    }
    const r = await queryOne<{ n: number; oldest: string | null }>(
      this.database.db,
      sql`SELECT count(*)::int AS n, (array_agg(h ORDER BY h DESC))[${this.limit}::int] AS oldest
            FROM rate_limit_windows w, unnest(w.hits) AS h
           WHERE w.key_id = ${key} AND h > ${nowMs - this.windowMs}`,
    );
    const n = r?.n ?? 0;
    if (n < this.limit) return { allowed: true, limit: this.limit, remaining: this.limit - n, retryAfterMs: 0 };
    return { allowed: false, limit: this.limit, remaining: 0, retryAfterMs: Number(r!.oldest) + this.windowMs - nowMs };
  }
}
