import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeEntry } from '../helpers/entry-bundle.ts';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';

// Several API processes share one PostgreSQL database: numbering must stay gapless and unique,
// and a process killed in the middle of an issue must leave neither a gap nor a duplicate.

let env: TestEnv;
let a: TestAccount;

function startChild(
  bid: string,
  ids: string[],
  parallel = 4,
): { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; out: string; err: string }> } {
  const child = spawn(process.execPath, nodeEntry('test/documents/issuer-child.ts'), {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: {
      ...process.env,
      LIVE_URL: env.urls.live,
      SANDBOX_URL: env.urls.sandbox,
      API_KEY: a.test,
      BUSINESS_ID: bid,
      DOC_IDS: ids.join(','),
      PARALLEL: String(parallel),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => {
    err += d;
    if (process.env.DEBUG_CHILD) process.stderr.write(d);
  });
  const done = new Promise<{ code: number | null; signal: string | null; out: string; err: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, out, err })),
  );
  return { child, done };
}

async function drafts(bid: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await env.call('POST', `/v1/businesses/${bid}/documents`, {
      key: a.test,
      // Dated: the child processes issue on the system clock, this file on the test clock.
      body: { docType: 305, documentDate: '2026-03-01', lines: [{ description: `שורה ${i}`, quantity: 1, unitPriceExVat: 1000 + i }] },
    });
    ids.push(r.body.document.id);
  }
  return ids;
}

async function continuity(bid: string) {
  return (await env.call('GET', `/v1/businesses/${bid}/reports/continuity?docType=305`, { key: a.test })).body.report;
}

describe('issuing from several processes on one PostgreSQL database', () => {
  beforeAll(async () => {
    env = await createTestEnv();
    a = await env.account();
  });
  afterAll(async () => env?.close());

  it('50 concurrent issues from 4 processes yield exactly 1..50', async () => {
    const b = await env.business(a.test);
    const ids = await drafts(b.id, 50);
    const shares = [0, 1, 2, 3].map((k) => ids.filter((_, i) => i % 4 === k));
    const children = shares.map((share) => startChild(b.id, share, 4));
    const outcomes = await Promise.all(children.map((c) => c.done));
    const results = outcomes.flatMap((o) => {
      expect(o.code, o.err).toBe(0);
      return JSON.parse(o.out.trim()) as { id: string; status: number; docNumber: number }[];
    });
    expect(results).toHaveLength(50);
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(results.map((r) => r.docNumber).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const rows = await env.sql<{ doc_number: number }>(
      'sandbox',
      `SELECT doc_number FROM documents WHERE business_id = '${b.id}' AND status = 'issued' ORDER BY doc_number`,
    );
    expect(rows.map((r) => Number(r.doc_number))).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const report = await continuity(b.id);
    expect(report.ok).toBe(true);
    expect(report.byDocType[0]).toMatchObject({ first: 1, last: 50, count: 50, gaps: [], duplicates: [] });
  }, 180_000);

  it('a process killed in the middle of an issue leaves no gap and no duplicate', async () => {
    const b = await env.business(a.test);
    const ids = await drafts(b.id, 4);
    expect((await env.call('POST', `/v1/businesses/${b.id}/documents/${ids[0]}/issue`, { key: a.test })).body.document.docNumber).toBe(1);

    // Hold the business's audit chain head: an issue takes its number first and appends its audit
    // row last, so the child's issue stops inside its transaction, holding number 2.
    const blocker = new pg.Client({ connectionString: env.urls.sandbox });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query(`SELECT * FROM audit_chain_heads WHERE chain = $1 FOR UPDATE`, [`biz:${b.id}`]);
    const { child, done } = startChild(b.id, [ids[1]], 1);
    try {
      let waiting = 0;
      for (let i = 0; i < 1500 && waiting === 0; i++) {
        // Polled outside the blocker: statistics views are snapshotted once per transaction.
        const r = await env.sql<{ n: number }>(
          'sandbox',
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        waiting = Number(r[0].n);
        if (waiting === 0) await new Promise((r2) => setTimeout(r2, 50));
      }
      expect(waiting).toBe(1);
      // The stuck transaction holds the counter row: it has taken its number.
      const locked = await env.sql<{ n: number }>(
        'sandbox',
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
         WHERE l.granted AND c.relname = 'document_counters' AND l.pid <> pg_backend_pid()`,
      );
      expect(Number(locked[0].n)).toBeGreaterThan(0);
      child.kill('SIGKILL');
      const outcome = await done;
      expect(outcome.signal).toBe('SIGKILL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await blocker.query('ROLLBACK').catch(() => {});
      await blocker.end().catch(() => {});
    }

    // The issue is one call: PostgreSQL runs it whole or not at all. Killed while it waited on the lock,
    // its call still completes once the blocker lets go (the database had all of it), or rolls back if
    // its session noticed the client was gone first; either way no number is lost.
    let status = '';
    for (let i = 0; i < 100; i++) {
      const [row] = await env.sql<{ status: string }>('sandbox', `SELECT status FROM documents WHERE id = '${ids[1]}'`);
      status = row.status;
      const busy = await env.sql<{ n: number }>(
        'sandbox',
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'document_counters' AND l.pid <> pg_backend_pid()`,
      );
      if (Number(busy[0].n) === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(['draft', 'issued']).toContain(status);

    const numbers = [];
    for (const id of ids.slice(1)) {
      const r = await env.call('POST', `/v1/businesses/${b.id}/documents/${id}/issue`, { key: a.test });
      expect(r.status).toBe(201);
      numbers.push(r.body.document.docNumber);
    }
    expect(numbers).toEqual([2, 3, 4]);
    const report = await continuity(b.id);
    expect(report.ok).toBe(true);
    expect(report.byDocType[0]).toMatchObject({ first: 1, last: 4, count: 4, gaps: [], duplicates: [] });
  }, 180_000);
});
