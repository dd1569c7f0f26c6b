import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../../src/platform/config.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import type { Database, Mode } from '../../src/platform/db/engine.ts';
import { query } from '../../src/platform/db/sql.ts';
import type { Services } from '../../src/platform/http/services.ts';
import { createServices } from '../../src/services.ts';
import { startInvalidation, stopInvalidation } from '../../src/platform/db/invalidation.ts';
import { buildApp } from '../../src/app.ts';
import { createAccount, setAccountLimits } from '../../src/accounts/accounts.ts';
import { mintKey } from '../../src/accounts/keys.ts';
import { freshDatabase } from './databases.ts';

/** Valid Israeli tax ids for fixtures. */
export const TAX_IDS = {
  company: '516179157',
  company2: '512200502',
  ngo: '580123453',
  person: '123456782',
  person2: '039337423',
  person3: '050012343',
};

export interface CallResult {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  /** Parsed JSON when the answer is JSON. */
  body: any;
  raw: Buffer;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as-is (for malformed JSON, multipart...). */
  payload?: string | Buffer;
}

export interface TestAccount {
  id: string;
  /** A live key and a sandbox key with the default scopes. */
  live: string;
  test: string;
  liveKeyId: string;
  testKeyId: string;
  /** Mints another key for this account. */
  mint(opts?: { mode?: 'live' | 'test'; scopes?: string[]; label?: string; expiresAt?: Date }): Promise<{ id: string; secret: string }>;
}

export interface TestEnv {
  s: Services;
  app: FastifyInstance;
  clock: ManualClock;
  db: Record<Mode, Database>;
  /** Connection strings of the test's databases, for tests that open other pools or start other processes. */
  urls: Record<Mode, string>;
  call(method: string, url: string, opts?: CallOptions): Promise<CallResult>;
  account(opts?: { name?: string; ocr?: boolean }): Promise<TestAccount>;
  /** Creates a business with the key and answers its JSON. */
  business(key: string, overrides?: Record<string, unknown>): Promise<any>;
  sql<T = Record<string, unknown>>(mode: Mode, text: string): Promise<T[]>;
  /** Runs a statement behind the protecting triggers (session_replication_role = replica), as a superuser can: tampering the database itself refuses. */
  tamper(mode: Mode, text: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A whole service on fresh databases of the engine under test, with a manual clock.
 * Background workers are not started: a test starts the ones it exercises. The in-process caches
 * (keys, accounts, plans, businesses) read through unless `cache` starts their LISTEN connections
 * as a serving process does; then `sql` answers once the caches have heard of its change.
 * PDFs render on the calling thread (PDF_WORKERS=0), with the modules the test worker has loaded already: a render
 * thread costs each file ~1 s of CPU to load tsx, pdfkit and the fonts again. The pool has its own tests
 * (test/prints/render-pool.test.ts), and the servers the tests start as processes render in theirs.
 */
export async function createTestEnv(opts: { env?: Record<string, string>; clock?: ManualClock; cache?: boolean } = {}): Promise<TestEnv> {
  const live = await freshDatabase('live');
  const sandbox = await freshDatabase('sandbox');
  // Stored files go to a folder of this environment's own (FILES_DIR), or where the test says (its own FILES_DIR, a bucket).
  const filesDir = mkdtempSync(path.join(tmpdir(), 'pinkas-test-files-'));
  const config = loadConfig({
    PINKAS_ENV: 'test',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '100000',
    PDF_WORKERS: '0',
    DATA_DIR: '/nonexistent',
    FILES_DIR: filesDir,
    ...opts.env,
  });
  const clock = opts.clock ?? new ManualClock('2026-03-01T08:00:00.000Z');
  const s = createServices(config, clock, createLogger(config.logLevel), { live: live.database, sandbox: sandbox.database });
  const app = await buildApp(s);
  await app.ready();
  if (opts.cache) await startInvalidation(s.invalidation);

  const env: TestEnv = {
    s,
    app,
    clock,
    db: s.databases,
    urls: { live: live.url, sandbox: sandbox.url },
    async call(method, url, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.key) headers['x-api-key'] = o.key;
      let payload: string | Buffer | undefined = o.payload;
      if (o.body !== undefined) {
        payload = JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await app.inject({ method: method as 'GET', url, headers, payload });
      let body: unknown = undefined;
      if (String(res.headers['content-type'] ?? '').includes('json')) body = res.json();
      return { status: res.statusCode, headers: res.headers, body, raw: res.rawPayload };
    },
    async account(a = {}) {
      const control = s.databases.live.db;
      const now = clock.now();
      const account = await createAccount(control, now, { name: a.name ?? 'Test integrator', approvalStatus: 'approved' });
      if (a.ocr) await setAccountLimits(control, account.id, { ocrGranted: true });
      const liveKey = await mintKey(control, now, { accountId: account.id, mode: 'live' });
      const testKey = await mintKey(control, now, { accountId: account.id, mode: 'test' });
      return {
        id: account.id,
        live: liveKey.secret,
        test: testKey.secret,
        liveKeyId: liveKey.key.id,
        testKeyId: testKey.key.id,
        async mint(m = {}) {
          const r = await mintKey(control, clock.now(), {
            accountId: account.id,
            mode: m.mode ?? 'live',
            scopes: m.scopes,
            label: m.label,
            expiresAt: m.expiresAt,
          });
          return { id: r.key.id, secret: r.secret };
        },
      };
    },
    async business(key, overrides = {}) {
      const res = await env.call('POST', '/v1/businesses', {
        key,
        body: { name: 'עסק לדוגמה בע"מ', taxId: TAX_IDS.company, dealerType: 'company', ...overrides },
      });
      if (res.status !== 201) throw new Error(`business create failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.business;
    },
    async sql(mode, text) {
      const rows = await query(s.databases[mode].db, sql.raw(text));
      await s.invalidation[mode].caughtUp();
      return rows as never;
    },
    async tamper(mode, text) {
      await s.databases[mode].db.transaction(async (tx) => {
        await tx.execute(sql`SET LOCAL session_replication_role = replica`);
        await tx.execute(sql.raw(text));
      });
    },
    async close() {
      await app.close();
      await stopInvalidation(s.invalidation);
      await s.pdfRenderer.close();
      await live.drop();
      await sandbox.drop();
      rmSync(filesDir, { recursive: true, force: true });
    },
  };
  return env;
}
