import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { alive, cli, clusterClient, killServer, postmasterPid, startServer, tempDataDir, type ServerProcess } from '../helpers/server-process.ts';
import { Receiver } from '../webhooks/receiver.ts';

// Power-cut drill: concurrent clients issue over HTTP; the server and its PostgreSQL are killed with
// SIGKILL mid-burst; `npm start` brings them back on the same DATA_DIR; clients retry what got no
// answer with the same Idempotency-Key. Nothing answered 2xx may be lost or changed, and numbering,
// the audit chain, jobs and webhook events must come through whole.
const CLIENTS = 8;
const PER_CLIENT = 30; // 240 documents: under the sandbox's 300 a day per business
const dataDir = tempDataDir('pinkas-crash-');
const receiver = new Receiver();
let server: ServerProcess | null = null;
let key = '';
let bid = '';

interface Outcome {
  i: number;
  ref: string;
  docType: number;
  /** The issue answer, when one came back 2xx before the crash. */
  answered: { id: string; docNumber: number; totalIncVat: number; lines: unknown } | null;
}
const outcomes: Outcome[] = [];

beforeAll(async () => {
  await receiver.start();
});
afterAll(async () => {
  if (server) {
    await killServer(server);
  }
  const pm = postmasterPid(dataDir);
  if (pm && alive(pm)) process.kill(pm, 'SIGKILL');
  await receiver.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const serverEnv = () => ({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CA_FILE: receiver.caFile, WEBHOOK_POLL_MS: '200', LOG_LEVEL: 'fatal' });

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${server!.base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(20_000),
  });
  return { status: r.status, body: (await r.json()) as any };
}

function draftBody(i: number, docType: number) {
  const quantity = 1 + (i % 3);
  const price = 1000 + i * 7;
  const lines = [{ description: `שירות ${i}`, quantity, unitPriceExVat: price }];
  if (docType === 305) return { docType, party: { name: `לקוח ${i}` }, lines };
  if (docType === 400) return { docType, party: { name: `לקוח ${i}` }, payments: [{ method: 'cash', amount: 5000 + i }] };
  // Gross prices: the total is exactly quantity × price, which the payment must equal.
  return { docType, party: { name: `לקוח ${i}` }, priceMode: 'gross', lines, payments: [{ method: 'cash', amount: quantity * price }] };
}

/** Draft (idempotent by key) then issue (idempotent by nature). Answers the issued document. */
async function issueOne(ref: string, i: number, docType: number) {
  const draft = await call('POST', `/v1/businesses/${bid}/documents`, draftBody(i, docType), { 'idempotency-key': ref });
  if (draft.status !== 201 && draft.status !== 200) throw new Error(`draft ${draft.status} ${JSON.stringify(draft.body)}`);
  const issued = await call('POST', `/v1/businesses/${bid}/documents/${draft.body.document.id}/issue`);
  if (issued.status !== 201 && issued.status !== 200) throw new Error(`issue ${issued.status} ${JSON.stringify(issued.body)}`);
  return issued.body.document;
}

describe('crash: SIGKILL of the server and its PostgreSQL mid-burst', () => {
  it('sets up a business and a webhook endpoint', async () => {
    server = await startServer(dataDir, { via: 'npm', env: serverEnv() });
    key = server.firstKey()!;
    const b = await call('POST', '/v1/businesses', { name: 'מבחן קריסה בע"מ', taxId: '516179157', dealerType: 'company' });
    expect(b.status).toBe(201);
    bid = b.body.business.id;
    const wh = await call('POST', '/v1/webhooks', { url: receiver.url('/crash', '127.0.0.1'), events: ['document.issued'] });
    expect(wh.status, JSON.stringify(wh.body)).toBe(201);
  }, 120_000);

  it('every answered document survives with its number and content; the rest complete on retry', async () => {
    // Kill both processes once a good part of the burst has been answered.
    let answeredCount = 0;
    const killAt = Math.floor((CLIENTS * PER_CLIENT) / 3);
    let killed = false;
    let killing: Promise<void> = Promise.resolve();
    const kill = () => {
      if (killed) return;
      killed = true;
      const pm = postmasterPid(dataDir)!;
      killing = killServer(server!);
      process.kill(pm, 'SIGKILL');
    };
    const types = [305, 320, 400];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let n = 0; n < PER_CLIENT; n++) {
          const i = c * PER_CLIENT + n;
          const o: Outcome = { i, ref: `crash-${i}`, docType: types[i % 3], answered: null };
          outcomes.push(o);
          if (killed) continue;
          try {
            const doc = await issueOne(o.ref, i, o.docType);
            o.answered = { id: doc.id, docNumber: doc.docNumber, totalIncVat: doc.totalIncVat, lines: doc.lines };
            if (++answeredCount >= killAt) kill();
          } catch {
            // No answer (connection reset by the kill): retried after the restart.
          }
        }
      }),
    );
    expect(killed).toBe(true);
    await killing;
    const answered = outcomes.filter((o) => o.answered);
    expect(answered.length).toBeGreaterThanOrEqual(killAt);
    expect(answered.length).toBeLessThan(outcomes.length);

    server = await startServer(dataDir, { via: 'npm', env: serverEnv() });
    expect(server.firstKey()).toBeNull();

    // Every 2xx answer is there, unchanged.
    for (const o of answered) {
      const r = await call('GET', `/v1/businesses/${bid}/documents/${o.answered!.id}`);
      expect(r.status).toBe(200);
      expect(r.body.document).toMatchObject({
        status: 'issued',
        docNumber: o.answered!.docNumber,
        totalIncVat: o.answered!.totalIncVat,
        lines: o.answered!.lines,
      });
    }
    // Retries with the same Idempotency-Key complete the rest, and repeat the answered ones exactly.
    for (const o of outcomes) {
      const doc = await issueOne(o.ref, o.i, o.docType);
      if (o.answered) expect({ id: doc.id, docNumber: doc.docNumber }).toEqual({ id: o.answered.id, docNumber: o.answered.docNumber });
    }
  }, 300_000);

  it('numbering has no gap and no duplicate in any series; the audit chain verifies', async () => {
    for (const docType of [305, 320, 400]) {
      const r = await call('GET', `/v1/businesses/${bid}/reports/continuity?docType=${docType}`);
      expect(r.status).toBe(200);
      expect(r.body.report.ok).toBe(true);
      expect(r.body.report.byDocType[0]).toMatchObject({ docType, first: 1, gaps: [], duplicates: [] });
    }
    const client = await clusterClient(dataDir, 'pinkas_sandbox');
    try {
      const rows = await client.query<{ doc_type: number; n: number; distinct_numbers: number; lo: number; hi: number }>(
        `SELECT doc_type, count(*)::int AS n, count(DISTINCT doc_number)::int AS distinct_numbers, min(doc_number)::int AS lo, max(doc_number)::int AS hi
           FROM documents WHERE business_id = $1 AND status = 'issued' GROUP BY doc_type ORDER BY doc_type`,
        [bid],
      );
      expect(rows.rows.reduce((sum, r) => sum + r.n, 0)).toBe(outcomes.length);
      for (const r of rows.rows) {
        expect(r.distinct_numbers).toBe(r.n);
        expect(r.hi - r.lo + 1).toBe(r.n);
      }
    } finally {
      await client.end();
    }
    const audit = cli(dataDir, 'audit', 'verify', '--mode', 'test');
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.json.ok, JSON.stringify(audit.json)).toBe(true);
  }, 120_000);

  it('no job and no webhook event is lost: one render job and one document.issued event per document, all delivered', async () => {
    const client = await clusterClient(dataDir, 'pinkas_sandbox');
    try {
      const ids = (await client.query<{ id: string }>(`SELECT id FROM documents WHERE business_id = $1 AND status = 'issued'`, [bid])).rows.map((r) => r.id);
      const events = await client.query<{ doc: string; n: number }>(
        `SELECT data->>'documentId' AS doc, count(*)::int AS n FROM outbox_events WHERE event = 'document.issued' AND business_id = $1 GROUP BY 1`,
        [bid],
      );
      expect(new Map(events.rows.map((r) => [r.doc, r.n]))).toEqual(new Map(ids.map((id) => [id, 1])));
      const jobs = await client.query<{ ref_id: string }>(`SELECT ref_id FROM jobs WHERE kind = 'document.render' AND business_id = $1`, [bid]);
      expect(new Set(jobs.rows.map((r) => r.ref_id))).toEqual(new Set(ids));
      // The restarted server works through what the killed one left: every PDF rendered, every event delivered.
      const t0 = Date.now();
      for (let i = 0; i < 600; i++) {
        const left = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE business_id = $1 AND done_at IS NULL`, [bid]);
        const delivered = new Set(receiver.to('/crash').map((r) => r.body?.data?.documentId));
        if (left.rows[0].n === 0 && ids.every((id) => delivered.has(id))) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      console.log(`crash test: jobs and deliveries caught up ${Date.now() - t0} ms after the retries`);
      const failed = await client.query(`SELECT id FROM jobs WHERE business_id = $1 AND (done_at IS NULL OR failed_at IS NOT NULL)`, [bid]);
      expect(failed.rows).toEqual([]);
      const delivered = new Set(receiver.to('/crash').map((r) => r.body?.data?.documentId));
      expect(ids.filter((id) => !delivered.has(id))).toEqual([]);
    } finally {
      await client.end();
    }
  }, 180_000);
});
