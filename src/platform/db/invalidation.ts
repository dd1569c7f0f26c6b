/**
 * The invalidation channel of the in-process caches (issue 28): one dedicated connection per database
 * LISTENs on `pinkas_cache`, where the triggers of migration 0027 announce every changed key, account,
 * plan and business (`<table>:<id>`, `<table>:*` after a TRUNCATE). Each domain subscribes the cache
 * of its own records. While the connection is down nothing may be trusted: every cache is flushed and
 * answers through to the database (`listening` false) until the connection is back and listening.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../logger.ts';
import { errorSummary } from '../logger.ts';
import type { Database, Mode } from './engine.ts';

export const CACHE_CHANNEL = 'pinkas_cache';
/** The tables whose triggers notify (migration 0027). */
export type CachedTable = 'api_keys' | 'accounts' | 'plans' | 'businesses';

export interface CacheSubscriber {
  /** The row with this id changed (or `*`: any row of the table). */
  invalidate(id: string): void;
  /** Forget everything: the connection dropped, or it is listening again after a drop. */
  flush(): void;
  /** The connection listens (again): a cache that preloads may load now. */
  resumed?(): void;
}

const RETRY_MS = [100, 250, 500, 1000, 2000, 5000];
const HEARTBEAT_MS = 10_000;
const CAUGHT_UP_TIMEOUT_MS = 5_000;
const FENCE_TIMEOUT_MS = 1_000;
/** application_name of every listening connection (with the process id): fence() counts them. */
const LISTENER_NAME = 'pinkas cache';

export class InvalidationChannel {
  private client: pg.Client | null = null;
  private listeningNow = false;
  private stopped = true;
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly subscribers = new Map<string, CacheSubscriber[]>();
  private readonly waiters = new Map<string, { arrived(): void; abort(): void }>();

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
  ) {}

  /** True while the connection listens: only then may a cache answer from memory. */
  get listening(): boolean {
    return this.listeningNow;
  }

  subscribe(table: CachedTable, subscriber: CacheSubscriber): void {
    this.subscribers.set(table, [...(this.subscribers.get(table) ?? []), subscriber]);
  }

  /** Connects and listens; when the database does not answer, keeps trying in the background (caches bypassed). */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const client = this.client;
    this.dropped();
    await client?.end().catch(() => {});
  }

  /**
   * Resolves once this connection has received every notification committed before the call: a
   * marker NOTIFY sent now arrives after them, since PostgreSQL delivers notifications in commit
   * order. Not listening: nothing to wait for (the caches read through). A marker that never comes
   * means the connection is dead without having said so: it is dropped and made again.
   */
  async caughtUp(timeoutMs = CAUGHT_UP_TIMEOUT_MS): Promise<void> {
    const client = this.client;
    if (!this.listeningNow || !client) return;
    const marker = this.marker(timeoutMs, 1);
    try {
      await client.query('SELECT pg_notify($1, $2)', [CACHE_CHANNEL, `sync:${marker.token}`]);
      if (await marker.done) return;
    } catch {
      /* the connection failed under the marker: handled below */
    } finally {
      marker.end();
    }
    if (this.client === client && this.listeningNow) {
      this.logger.warn({ database: this.database.mode }, 'cache invalidation connection stopped answering; reconnecting');
      this.lost(client);
      await client.end().catch(() => {});
    }
  }

  /**
   * Resolves once every process listening on this database has received every notification committed
   * before the call: each answers the marker `fence:<token>` with `ack:<token>`, and reads the marker
   * only after what was committed before it. A write of a cached record (a revocation, a deactivation)
   * awaits it before answering. Why not only this process's own marker: NOTIFY goes to every listener
   * at commit, but each hears it when the machine schedules its backend and its process — measured at
   * a few milliseconds on a loaded 2-core machine, time enough for the caller's next request to reach
   * another process first. A process not listening yet needs no ack (it loads afresh once it listens);
   * one that never answers (its connection dead unseen) costs the timeout, logged.
   */
  async fence(timeoutMs = FENCE_TIMEOUT_MS): Promise<void> {
    const client = this.client;
    if (!this.listeningNow || !client) return;
    const marker = this.marker(timeoutMs, Infinity);
    try {
      const { rows } = await client.query<{ listeners: number }>(
        `SELECT pg_notify($1, $2), (SELECT count(*)::int FROM pg_stat_activity
           WHERE datname = current_database() AND application_name LIKE '${LISTENER_NAME} %') AS listeners`,
        [CACHE_CHANNEL, `fence:${marker.token}`],
      );
      marker.expect(rows[0].listeners);
      if (!(await marker.done)) this.logger.warn({ database: this.database.mode, ...marker.counts() }, 'not every process acknowledged a cache fence in time');
    } catch {
      /* the connection failed: the caches read through until it is back */
    } finally {
      marker.end();
    }
  }

  /** A marker awaiting `expected` arrivals of its token (sync or ack), or the timeout (false). */
  private marker(timeoutMs: number, expected: number) {
    const token = randomBytes(12).toString('hex');
    let arrived = 0;
    let timeout: NodeJS.Timeout | undefined;
    let finish!: (ok: boolean) => void;
    const done = new Promise<boolean>((resolve) => {
      finish = resolve;
      timeout = setTimeout(() => resolve(false), timeoutMs);
    });
    // Dropped (abort): nothing more to wait for, the caches read through until the connection is back.
    this.waiters.set(token, {
      arrived: () => {
        if (++arrived >= expected) finish(true);
      },
      abort: () => finish(true),
    });
    return {
      token,
      done,
      expect: (n: number) => {
        expected = n;
        if (arrived >= expected) finish(true);
      },
      counts: () => ({ acknowledged: arrived, listeners: expected }),
      end: () => {
        clearTimeout(timeout);
        this.waiters.delete(token);
      },
    };
  }

  private async connect(): Promise<void> {
    // The pool's own settings (URL, credentials, TLS), on a connection of its own: a LISTEN holds it.
    // Named, so that an operator sees whose LISTEN connection it is (pg_stat_activity.application_name).
    const client = new pg.Client({ ...(this.database.pool.options as pg.ClientConfig), keepAlive: true, application_name: `${LISTENER_NAME} ${process.pid}` });
    client.on('notification', (n) => this.deliver(n.payload ?? ''));
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CACHE_CHANNEL}`);
    } catch (err) {
      this.logger.warn({ err: errorSummary(err), database: this.database.mode }, 'cache invalidation cannot listen; caches bypassed until it can');
      this.lost(client);
      await client.end().catch(() => {});
      return;
    }
    if (this.client !== client || this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.failures = 0;
    // Whatever changed while nobody listened is unknown: forget it again (a read that began before
    // this point must not fill a cache either, which the flush's new generation sees to).
    this.each((sub) => sub.flush());
    this.listeningNow = true;
    this.each((sub) => sub.resumed?.());
    this.schedule(HEARTBEAT_MS, () => this.heartbeat());
  }

  private heartbeat(): void {
    void this.caughtUp().finally(() => {
      if (this.listeningNow) this.schedule(HEARTBEAT_MS, () => this.heartbeat());
    });
  }

  /** The connection failed or ended: caches flushed and bypassed, a new connection after a pause. */
  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.dropped();
    if (this.stopped) return;
    const wait = RETRY_MS[Math.min(this.failures++, RETRY_MS.length - 1)];
    this.schedule(wait, () => void this.connect());
  }

  private dropped(): void {
    const was = this.listeningNow;
    this.listeningNow = false;
    this.client = null;
    if (was) this.each((sub) => sub.flush());
    for (const waiter of this.waiters.values()) waiter.abort();
  }

  private schedule(ms: number, run: () => void): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(run, ms);
    this.timer.unref();
  }

  private deliver(payload: string): void {
    const colon = payload.indexOf(':');
    const table = payload.slice(0, colon);
    const id = payload.slice(colon + 1);
    if (table === 'sync' || table === 'ack') return this.waiters.get(id)?.arrived();
    if (table === 'fence') return void this.client?.query('SELECT pg_notify($1, $2)', [CACHE_CHANNEL, `ack:${id}`]).catch(() => {});
    for (const sub of this.subscribers.get(table) ?? []) {
      if (id === '*') sub.flush();
      else sub.invalidate(id);
    }
  }

  private each(fn: (sub: CacheSubscriber) => void): void {
    for (const subs of this.subscribers.values()) for (const sub of subs) fn(sub);
  }
}

/** One channel per database; live and sandbox share one when they are the same database. */
export function invalidationChannels(databases: Record<Mode, Database>, logger: Logger): Record<Mode, InvalidationChannel> {
  const live = new InvalidationChannel(databases.live, logger);
  const same = sameDatabase(databases.live, databases.sandbox);
  return { live, sandbox: same ? live : new InvalidationChannel(databases.sandbox, logger) };
}

function sameDatabase(a: Database, b: Database): boolean {
  if (a === b) return true;
  const target = (d: Database) => {
    const o = d.pool.options as pg.ClientConfig;
    return o.connectionString ?? `${String(o.host)}:${String(o.port)}/${String(o.database)}`;
  };
  return target(a) === target(b);
}

const distinct = (channels: Record<Mode, InvalidationChannel>) => [...new Set(Object.values(channels))];

/** A serving process listens from its start (src/runtime/roles.ts); without it the caches read through. */
export async function startInvalidation(channels: Record<Mode, InvalidationChannel>): Promise<void> {
  await Promise.all(distinct(channels).map((c) => c.start()));
}

export async function stopInvalidation(channels: Record<Mode, InvalidationChannel>): Promise<void> {
  await Promise.all(distinct(channels).map((c) => c.stop()));
}
