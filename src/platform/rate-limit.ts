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

/**
 * True sliding window, kept as the log of the last `limit` accepted request times:
 * a request is allowed when fewer than `limit` were accepted in the last `windowMs`.
 */
export class MemoryRateLimiter implements RateLimiter {
  private logs = new Map<string, number[]>();
  constructor(private readonly limit: number, private readonly windowMs = 60_000) {}

  async hit(key: string, nowMs: number): Promise<RateDecision> {
    return this.hitSync(key, nowMs);
  }

  hitSync(key: string, nowMs: number): RateDecision {
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

/** The same algorithm in one SQL function call, for several processes sharing a PostgreSQL server. */
export class PostgresRateLimiter implements RateLimiter {
  constructor(private readonly database: Database, private readonly limit: number, private readonly windowMs = 60_000) {}

  async hit(key: string, nowMs: number): Promise<RateDecision> {
    const r = await queryOne<{ allowed: boolean; remaining: number; retry_after_ms: number }>(
      this.database.db,
      sql`SELECT * FROM rate_limit_hit(${key}, ${nowMs}, ${this.windowMs}, ${this.limit})`,
    );
    return { allowed: r!.allowed, limit: this.limit, remaining: r!.remaining, retryAfterMs: Number(r!.retry_after_ms) };
  }
}
