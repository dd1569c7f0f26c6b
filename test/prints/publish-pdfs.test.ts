// Publishing a document's PDFs in one publish_pdfs call (migration 0029): the files, their links, the
// document's pdf_files, the audit row and document.pdf_ready together; content stored before is reused.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import type { PdfRenderer } from '../../src/prints/render-pool.ts';
import { auditRowCall, verifyAuditChains } from '../../src/platform/audit.ts';
import { newId, randomToken } from '../../src/platform/ids.ts';
import { issueDoc, renderRunner, tempDataDir } from './helpers.ts';
import { pdfFilesOf } from '../helpers/pdf-files.ts';
import { sampleLogoPng } from '../../src/pdf/samples.ts';

/** A renderer that answers the same bytes for every document: the content a second document's PDFs share with the first's. */
function sameBytesRenderer(real: PdfRenderer): PdfRenderer {
  const origin = Buffer.from('%PDF-1.7 origin of every document\n');
  const copy = Buffer.from('%PDF-1.7 copy of every document\n');
  return { threads: real.threads, capacity: real.capacity, pair: async () => ({ origin, copy }), draft: real.draft, close: async () => {} };
}

/** Holds every render until `n` are waiting, then answers them all at once: their jobs reach publishing together. */
function gatedRenderer(inner: PdfRenderer, n: number): PdfRenderer {
  const waiting: (() => void)[] = [];
  return {
    ...inner,
    pair: async (task) => {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length === n) for (const go of waiting.splice(0)) go();
      });
      return inner.pair(task);
    },
  };
}

describe('publish_pdfs', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv({ env: { DATA_DIR: tempDataDir() } });
  });
  afterAll(() => env.close());

  it('writes the files, links, audit row and event of a document together', async () => {
    const a = await env.account();
    const b = await env.business(a.test);
    const doc = await issueDoc(env, a.test, b.id);
    expect(await renderRunner(env).runDue('sandbox')).toBe(1);
    const [row] = await env.sql<any>('sandbox', `SELECT ${pdfFilesOf(`'${doc.id}'`)} AS pdf_files`);
    const files = typeof row.pdf_files === 'string' ? JSON.parse(row.pdf_files) : row.pdf_files;
    const links = await env.sql<any>('sandbox', `SELECT variant, file_id, slug FROM pdf_links WHERE document_id = '${doc.id}' ORDER BY variant`);
    expect(links).toEqual([
      { variant: 'copy', file_id: files.copy.fileId, slug: files.copy.slug },
      { variant: 'origin', file_id: files.origin.fileId, slug: files.origin.slug },
    ]);
    const stored = await env.sql<any>('sandbox', `SELECT id, mime, size FROM files WHERE id IN ('${files.origin.fileId}', '${files.copy.fileId}')`);
    expect(stored).toHaveLength(2);
    for (const f of stored) expect(f).toMatchObject({ mime: 'application/pdf' });
    const [audit] = await env.sql<any>('sandbox', `SELECT after FROM audit_log WHERE action = 'document.pdf_rendered' AND entity_id = '${doc.id}'`);
    expect(audit.after.pdfFiles).toEqual({ origin: files.origin.fileId, copy: files.copy.fileId });
    const [event] = await env.sql<any>('sandbox', `SELECT data FROM outbox_events WHERE event = 'document.pdf_ready' AND data->>'documentId' = '${doc.id}'`);
    expect(event.data.files).toEqual({ origin: { id: files.origin.fileId, slug: files.origin.slug }, copy: { id: files.copy.fileId, slug: files.copy.slug } });
  });

  it('links a second document to the files already holding the same content, and the chain still verifies', async () => {
    const a = await env.account();
    const b = await env.business(a.test);
    const real = env.s.pdfRenderer;
    env.s.pdfRenderer = sameBytesRenderer(real);
    try {
      const first = await issueDoc(env, a.test, b.id);
      const second = await issueDoc(env, a.test, b.id);
      expect(await renderRunner(env).runDue('sandbox')).toBe(2);
      const rows = await env.sql<any>(
        'sandbox',
        `SELECT id, ${pdfFilesOf('documents.id')} AS pdf_files FROM documents WHERE id IN ('${first.id}', '${second.id}')`,
      );
      const byId = new Map(rows.map((r: any) => [r.id, typeof r.pdf_files === 'string' ? JSON.parse(r.pdf_files) : r.pdf_files]));
      const [one, two] = [byId.get(first.id), byId.get(second.id)];
      expect(two.origin.fileId).toBe(one.origin.fileId);
      expect(two.copy.fileId).toBe(one.copy.fileId);
      expect(two.origin.slug).not.toBe(one.origin.slug);
      const [{ n }] = await env.sql<any>('sandbox', `SELECT count(*)::int AS n FROM files WHERE business_id = '${b.id}' AND mime = 'application/pdf'`);
      expect(n).toBe(2);
      const [audit] = await env.sql<any>('sandbox', `SELECT after FROM audit_log WHERE action = 'document.pdf_rendered' AND entity_id = '${second.id}'`);
      expect(audit.after.pdfFiles).toEqual({ origin: one.origin.fileId, copy: one.copy.fileId });
      const check = await verifyAuditChains(env.s.databases.sandbox.db);
      expect(check.problems).toEqual([]);
    } finally {
      env.s.pdfRenderer = real;
    }
  });

  it('publishes once: a second run of the job finds the files attached', async () => {
    const a = await env.account();
    const b = await env.business(a.test);
    const doc = await issueDoc(env, a.test, b.id);
    expect(await renderRunner(env).runDue('sandbox')).toBe(1);
    const before = await env.sql<any>('sandbox', `SELECT ${pdfFilesOf(`'${doc.id}'`)}::text AS f`);
    const { renderAndPublish } = await import('../../src/prints/render-job.ts');
    const again = await renderAndPublish(env.s, env.s.databases.sandbox, doc.id);
    expect(JSON.stringify(again)).toBe(JSON.stringify(JSON.parse(before[0].f)));
    const [{ n }] = await env.sql<any>('sandbox', `SELECT count(*)::int AS n FROM pdf_links WHERE document_id = '${doc.id}'`);
    expect(n).toBe(2);
  });

  it('a publish that waited on the row lock of another publish of the document answers published_before', async () => {
    const a = await env.account();
    const b = await env.business(a.test);
    const doc = await issueDoc(env, a.test, b.id); // its render job is not run: no PDFs yet
    const [{ account_id: accountId }] = await env.sql<any>('sandbox', `SELECT account_id FROM businesses WHERE id = '${b.id}'`);
    const at = new Date();
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    const call = (tag: string) => {
      const file = (v: string) => ({ id: newId('file'), sha256: sha(`${tag} ${v}`), size: 10, name: `${v}.pdf` });
      const files = { origin: file('origin'), copy: file('copy') };
      return {
        documentId: doc.id,
        businessId: b.id,
        at: at.toISOString(),
        mime: 'application/pdf',
        store: 'fs',
        files,
        pdfFiles: {
          origin: { fileId: files.origin.id, slug: randomToken(24) },
          copy: { fileId: files.copy.id, slug: randomToken(24) },
        },
        audit: auditRowCall(
          at,
          { accountId, keyId: null },
          { businessId: b.id, action: 'document.pdf_rendered', entityType: 'document', entityId: doc.id, after: { tag } },
        ),
        event: { id: newId('evt'), event: 'document.pdf_ready', accountId, businessId: b.id, data: { documentId: doc.id } },
      };
    };
    const [first, second] = [new pg.Client({ connectionString: env.urls.sandbox }), new pg.Client({ connectionString: env.urls.sandbox })];
    await first.connect();
    await second.connect();
    try {
      const firstCall = call('first');
      await first.query('BEGIN');
      const published = (await first.query('SELECT publish_pdfs($1::jsonb) AS r', [JSON.stringify(firstCall)])).rows[0].r;
      expect(published.outcome).toBe('published');
      const [{ pid }] = (await second.query('SELECT pg_backend_pid() AS pid')).rows;
      const waiting = second.query('SELECT publish_pdfs($1::jsonb) AS r', [JSON.stringify(call('second'))]);
      // The second publish waits on the document's row until the first commits.
      for (let i = 0; ; i++) {
        const [{ lock }] = (await first.query(`SELECT wait_event_type = 'Lock' AS lock FROM pg_stat_activity WHERE pid = $1`, [pid])).rows;
        if (lock) break;
        if (i > 200) throw new Error('the second publish never waited on the lock');
        await new Promise((r) => setTimeout(r, 10));
      }
      await first.query('COMMIT');
      const answer = (await waiting).rows[0].r;
      expect(answer).toEqual({ outcome: 'published_before', pdfFiles: firstCall.pdfFiles });
    } finally {
      await first.end();
      await second.end();
    }
    const [{ n }] = await env.sql<any>('sandbox', `SELECT count(*)::int AS n FROM pdf_links WHERE document_id = '${doc.id}'`);
    expect(n).toBe(2);
    // The document's own render job finds its PDFs published and ends (it would run in the next test's runner).
    expect(await renderRunner(env).runDue('sandbox')).toBe(1);
  });

  it('publishes jobs that finish together in one statement, each document once, files shared by content, chains intact', async () => {
    const a = await env.account();
    const [b1, b2] = [await env.business(a.test), await env.business(a.test)];
    const docs = [
      await issueDoc(env, a.test, b1.id),
      await issueDoc(env, a.test, b2.id),
      await issueDoc(env, a.test, b1.id),
      await issueDoc(env, a.test, b2.id),
    ];
    const real = env.s.pdfRenderer;
    env.s.pdfRenderer = gatedRenderer(sameBytesRenderer(real), docs.length);
    const pool = env.s.databases.sandbox.pool;
    const poolQuery = pool.query;
    const batches: unknown[][] = [];
    pool.query = function (this: typeof pool, ...args: unknown[]) {
      const [q, values] = args as [{ text?: string } | string, unknown[] | undefined];
      const text = typeof q === 'string' ? q : q.text;
      if (text?.includes('publish_pdfs_batch')) batches.push(JSON.parse(String(values![0])));
      return (poolQuery as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pool.query;
    // The documents' rows locked meanwhile: the first publish waits on its row, and the others arrive while it does.
    const locker = await pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`SELECT id FROM documents WHERE id IN (${docs.map((d) => `'${d.id}'`).join(',')}) FOR UPDATE`);
      expect(env.s.pdfRenderer.capacity).toBeGreaterThanOrEqual(docs.length);
      const ran = renderRunner(env).runDue('sandbox');
      await new Promise((r) => setTimeout(r, 1_500));
      await locker.query('COMMIT');
      expect(await ran).toBe(docs.length);
    } finally {
      locker.release();
      pool.query = poolQuery;
      env.s.pdfRenderer = real;
    }
    // The first publish went alone; those that finished while it was sent went together, by business then document
    // (then those that found their content stored under another document's files, again together).
    expect(batches.length).toBeGreaterThanOrEqual(1);
    const batched = batches[0] as { businessId: string; documentId: string }[];
    expect(batched).toHaveLength(docs.length - 1);
    const keys = batched.map((c) => `${c.businessId} ${c.documentId}`);
    expect(keys).toEqual([...keys].sort());
    const ids = docs.map((d) => `'${d.id}'`).join(',');
    const links = await env.sql<any>('sandbox', `SELECT document_id, count(*)::int AS n FROM pdf_links WHERE document_id IN (${ids}) GROUP BY document_id`);
    expect(links.map((l: any) => l.n)).toEqual([2, 2, 2, 2]);
    const events = await env.sql<any>(
      'sandbox',
      `SELECT count(*)::int AS n FROM outbox_events WHERE event = 'document.pdf_ready' AND data->>'documentId' IN (${ids})`,
    );
    expect(events[0].n).toBe(docs.length);
    for (const b of [b1, b2]) {
      const [{ n }] = await env.sql<any>('sandbox', `SELECT count(*)::int AS n FROM files WHERE business_id = '${b.id}' AND mime = 'application/pdf'`);
      expect(n).toBe(2);
    }
    const jobs = await env.sql<any>(
      'sandbox',
      `SELECT count(*)::int AS n FROM jobs WHERE kind = 'document.render' AND ref_id IN (${ids}) AND done_at IS NOT NULL`,
    );
    expect(jobs[0].n).toBe(docs.length);
    expect((await verifyAuditChains(env.s.databases.sandbox.db)).problems).toEqual([]);
  });

  it("reads a business's logo once for the documents rendered together, and draws it on each", async () => {
    const a = await env.account();
    const logo = `data:image/png;base64,${sampleLogoPng().toString('base64')}`;
    const b = await env.business(a.test, { branding: { logo } });
    const docs = [await issueDoc(env, a.test, b.id), await issueDoc(env, a.test, b.id), await issueDoc(env, a.test, b.id)];
    const pool = env.s.databases.sandbox.pool;
    const poolQuery = pool.query;
    let fileReads = 0;
    pool.query = function (this: typeof pool, ...args: unknown[]) {
      const q = args[0] as { text?: string } | string;
      if (/FROM files WHERE id = /.test(typeof q === 'string' ? q : (q.text ?? ''))) fileReads++;
      return (poolQuery as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pool.query;
    try {
      expect(await renderRunner(env).runDue('sandbox')).toBe(docs.length);
    } finally {
      pool.query = poolQuery;
    }
    expect(fileReads).toBe(1);
    for (const d of docs) {
      const pdf = await env.call('POST', `/v1/businesses/${b.id}/documents/${d.id}/print`, { key: a.test });
      expect(pdf.status).toBe(200);
      expect(pdf.raw.toString('latin1')).toContain('/Subtype /Image');
    }
  });
});
