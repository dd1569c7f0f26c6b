import { sql } from 'drizzle-orm';
import type { Database, Mode } from '../platform/db/engine.ts';
import type { Logger } from '../platform/logger.ts';
import { errorSummary } from '../platform/logger.ts';
import { newId } from '../platform/ids.ts';

/** One answered request, as the response hook saw it (nothing computed on the request's path beyond this). */
export interface RequestLogEntry {
  mode: Mode;
  accountId: string;
  keyPrefix: string;
  requestId: string;
  method: string;
  path: string;
  status: number;
  reason: string | null;
  durationMs: number;
  /** Epoch ms of the answer. */
  at: number;
}

declare module '../platform/http/services.ts' {
  interface Services {
    /** This process's request-log buffer: the response hook adds to it, a timer writes it in batches. */
    requestLog: RequestLogBuffer;
  }
}

/** How the buffer flushes: every `everyMs`, or as soon as `batchRows` wait; past `maxRows` (the database away) new rows are dropped and counted. */
export interface RequestLogOptions {
  everyMs: number;
  batchRows: number;
  maxRows: number;
}

const DEFAULTS: RequestLogOptions = { everyMs: 1_000, batchRows: 500, maxRows: 50_000 };

/**
 * The request log is written off the request path (issue 28 keeps that path to its own round trips): the
 * response hook only pushes an entry here, and one multi-row INSERT per mode (`jsonb_to_recordset`) writes a
 * batch every second, at `batchRows`, and on shutdown. A crash loses at most the last second of log rows.
 */
export class RequestLogBuffer {
  private rows: RequestLogEntry[] = [];
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private readonly options: RequestLogOptions;
  /** Entries refused because the buffer was full (the database unreachable for a long while). */
  dropped = 0;

  constructor(
    private readonly databases: Record<Mode, Database>,
    private readonly logger: Logger,
    options: Partial<RequestLogOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  add(entry: RequestLogEntry): void {
    if (this.rows.length >= this.options.maxRows) {
      this.dropped++;
      return;
    }
    this.rows.push(entry);
    if (this.rows.length === this.options.batchRows) void this.flush();
  }

  /** Writes every buffered entry; flushes run one after another, so a caller awaiting one sees its rows written. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.writeBatch());
    return this.writing;
  }

  private async writeBatch(): Promise<void> {
    const batch = this.rows;
    if (batch.length === 0) return;
    this.rows = [];
    for (const mode of ['live', 'sandbox'] as const) {
      const rows = batch.filter((r) => r.mode === mode);
      if (rows.length === 0) continue;
      try {
        await insertEntries(this.databases[mode], rows);
      } catch (err) {
        // Kept for the next flush (within the bound); figures for people, never a reason to fail a request.
        this.rows = [...rows, ...this.rows].slice(0, this.options.maxRows);
        this.logger.warn({ err: errorSummary(err), mode, rows: rows.length }, 'request log: writing a batch failed; kept for the next flush');
      }
    }
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.options.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}

/** One statement for the whole batch: the rows travel as one JSON parameter. */
async function insertEntries(database: Database, rows: RequestLogEntry[]): Promise<void> {
  const json = JSON.stringify(
    rows.map((r) => ({
      id: newId('rql', r.at),
      account_id: r.accountId,
      key_prefix: r.keyPrefix,
      request_id: r.requestId,
      method: r.method,
      path: r.path,
      status: r.status,
      reason: r.reason,
      duration_ms: r.durationMs,
      created_at: new Date(r.at).toISOString(),
    })),
  );
  await database.db.execute(
    sql`INSERT INTO api_requests(id, account_id, key_prefix, request_id, method, path, status, reason, duration_ms, created_at)
        SELECT id, account_id, key_prefix, request_id, method, path, status, reason, duration_ms, created_at
          FROM jsonb_to_recordset(${json}::jsonb) AS r(id text, account_id text, key_prefix text, request_id text, method text, path text,
                                                     status integer, reason text, duration_ms integer, created_at timestamptz)`,
  );
}
