import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { checkPdfSignature, pdfSignatureValid } from '../pdf/signature-check.ts';
import { pdfText } from '../pdf/extract-text.ts';
import { issueDoc, line, pdfPath, renderRunner, tempDataDir } from './helpers.ts';
import { sampleLogoPng } from '../../src/pdf/samples.ts';
import { pdfFilesOf } from '../helpers/pdf-files.ts';

let env: TestEnv;
let a: TestAccount;
let dataDir: string;
beforeAll(async () => {
  dataDir = tempDataDir();
  env = await createTestEnv({ env: { DATA_DIR: dataDir, PUBLIC_BASE_URL: 'https://pinkas.example' } });
  a = await env.account();
});
afterAll(async () => env?.close());

async function issuedAndRendered(key = a.live, body: Record<string, unknown> = {}) {
  const b = await env.business(key);
  const doc = await issueDoc(env, key, b.id, body);
  await renderRunner(env).runDue(key === a.live ? 'live' : 'sandbox');
  return { b, doc };
}

describe('the render job', () => {
  it('prints answer pdf_pending until the job ran, then origin once and copies after', async () => {
    const b = await env.business(a.live);
    const doc = await issueDoc(env, a.live, b.id);
    expect(doc.docNumber).toBe(1);

    const pending = await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live });
    expect(pending.status).toBe(409);
    expect(pending.body.reason).toBe('pdf_pending');
    expect(Number(pending.headers['retry-after'])).toBeGreaterThan(0);
    const sharePending = await env.call('POST', pdfPath(b.id, doc.id, 'share'), { key: a.live });
    expect(sharePending.body.reason).toBe('pdf_pending');

    expect(await renderRunner(env).runDue('live')).toBe(1);

    const [row] = await env.sql<any>(
      'live',
      `SELECT ${pdfFilesOf('documents.id')} AS pdf_files, print_count, origin_handed_out_at FROM documents WHERE id = '${doc.id}'`,
    );
    const files = typeof row.pdf_files === 'string' ? JSON.parse(row.pdf_files) : row.pdf_files;
    expect(files.origin.fileId).toMatch(/^file_/);
    expect(files.copy.fileId).toMatch(/^file_/);
    expect(files.origin.fileId).not.toBe(files.copy.fileId);
    // Slugs: 24 random bytes, base64url (192 bits ≥ 128).
    expect(files.origin.slug).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(files.copy.slug).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(row.origin_handed_out_at).toBeNull();

    const [event] = await env.sql<any>('live', `SELECT data FROM outbox_events WHERE event = 'document.pdf_ready' AND data->>'documentId' = '${doc.id}'`);
    const data = typeof event.data === 'string' ? JSON.parse(event.data) : event.data;
    expect(data).toEqual({
      documentId: doc.id,
      files: { origin: { id: files.origin.fileId, slug: files.origin.slug }, copy: { id: files.copy.fileId, slug: files.copy.slug } },
    });

    const read = await env.call('GET', `/v1/businesses/${b.id}/documents/${doc.id}`, { key: a.live });
    expect(read.body.document.files).toEqual({ origin: files.origin.fileId, copy: files.copy.fileId });

    const first = await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live });
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('application/pdf');
    expect(first.headers['x-print-variant']).toBe('origin');
    expect(pdfSignatureValid(first.raw)).toBe(true);
    const originText = await pdfText(first.raw);
    expect(originText).toContain('מקור');
    expect(originText).toContain("חשבונית מס מס' 1");
    expect(originText).toContain('לקוח לדוגמה');
    expect(originText).toContain('₪236.00'); // 2 × 100.00 + 18% VAT

    env.clock.advance(1_000);
    const second = await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live, body: {} });
    expect(second.headers['x-print-variant']).toBe('copy');
    const copyText = await pdfText(second.raw);
    expect(copyText).toContain('העתק');
    expect(copyText).not.toContain('מקור');

    const again = await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live, body: { kind: 'origin' } });
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe('conflict');
    env.clock.advance(1_000);
    const copy = await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live, body: { kind: 'copy' } });
    expect(copy.headers['x-print-variant']).toBe('copy');

    const log = await env.call('GET', pdfPath(b.id, doc.id, 'prints'), { key: a.live });
    expect(log.status).toBe(200);
    expect(log.body.printCount).toBe(3);
    expect(log.body.prints.map((p: any) => [p.variant, p.channel])).toEqual([
      ['origin', 'print'],
      ['copy', 'print'],
      ['copy', 'print'],
    ]);
    expect(log.body.prints[0].keyPrefix).toMatch(/^bk_live_/);
    expect(log.body.prints[2].createdAt).toBe(env.clock.now().toISOString());
    const after = await env.call('GET', `/v1/businesses/${b.id}/documents/${doc.id}`, { key: a.live });
    expect(after.body.document.printCount).toBe(3);
  });

  it('stores the self-signed certificate once under DATA_DIR', () => {
    expect(existsSync(path.join(dataDir, 'signing', 'self-signed.p12'))).toBe(true);
  });

  it('is idempotent: a second run publishes nothing new', async () => {
    const { b, doc } = await issuedAndRendered();
    const before = await env.sql<any>('live', `SELECT ${pdfFilesOf(`'${doc.id}'`)}::text AS f`);
    await env.sql('live', `UPDATE jobs SET done_at = NULL, run_at = '2000-01-01' WHERE kind = 'document.render' AND ref_id = '${doc.id}'`);
    expect(await renderRunner(env).runDue('live')).toBe(1);
    const afterRows = await env.sql<any>('live', `SELECT ${pdfFilesOf(`'${doc.id}'`)}::text AS f`);
    expect(afterRows[0].f).toBe(before[0].f);
    const events = await env.sql('live', `SELECT 1 FROM outbox_events WHERE event = 'document.pdf_ready' AND data->>'documentId' = '${doc.id}'`);
    expect(events).toHaveLength(1);
    expect(b.id).toBeTruthy();
  });

  it('waits for a pending allocation number within the bound, then prints it', async () => {
    const b = await env.business(a.live);
    const doc = await issueDoc(env, a.live, b.id);
    // The allocation area's state: a request is pending.
    await env.sql(
      'live',
      `UPDATE documents SET allocation = '{"status":"pending","number":null,"error":null,"requestedAt":null,"decidedAt":null}'::jsonb WHERE id = '${doc.id}'`,
    );
    await renderRunner(env).runDue('live');
    const [job] = await env.sql<any>(
      'live',
      `SELECT attempts, done_at, failed_at, run_at, last_error FROM jobs WHERE kind = 'document.render' AND ref_id = '${doc.id}'`,
    );
    expect(job.done_at).toBeNull();
    expect(job.attempts).toBe(0); // waiting is not a failure
    expect(job.last_error).toMatch(/allocation/);
    expect((await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live })).body.reason).toBe('pdf_pending');

    // The number arrives; the next run prints it.
    await env.sql(
      'live',
      `UPDATE documents SET allocation_number = '123456789', allocation = '{"status":"granted","number":"123456789","error":null,"requestedAt":null,"decidedAt":null}'::jsonb WHERE id = '${doc.id}'`,
    );
    env.clock.advance(3_000);
    expect(await renderRunner(env).runDue('live')).toBe(1);
    const print = await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live });
    expect(await pdfText(print.raw)).toContain('מספר הקצאה: 123456789');
  });

  it('renders without the number once the bound has passed', async () => {
    const b = await env.business(a.live);
    const doc = await issueDoc(env, a.live, b.id);
    await env.sql(
      'live',
      `UPDATE documents SET allocation = '{"status":"pending","number":null,"error":null,"requestedAt":null,"decidedAt":null}'::jsonb WHERE id = '${doc.id}'`,
    );
    await renderRunner(env).runDue('live');
    env.clock.advance(61_000);
    expect(await renderRunner(env).runDue('live')).toBe(1);
    const print = await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live });
    expect(print.headers['x-print-variant']).toBe('origin');
    expect(await pdfText(print.raw)).not.toContain('מספר הקצאה');
  });

  it('several runners (processes) publish a document once; a crashed claim is picked up after its lease', async () => {
    const b = await env.business(a.live);
    const one = await issueDoc(env, a.live, b.id);
    const two = await issueDoc(env, a.live, b.id);
    // A process claimed `two` and died: its lease holds the job until it ends.
    await env.sql(
      'live',
      `UPDATE jobs SET locked_until = '${new Date(env.clock.now().getTime() + 120_000).toISOString()}', attempts = 1 WHERE kind = 'document.render' AND ref_id = '${two.id}'`,
    );
    const ran = await Promise.all([renderRunner(env).runDue('live'), renderRunner(env).runDue('live'), renderRunner(env).runDue('live')]);
    expect(ran.reduce((x, y) => x + y, 0)).toBe(1);
    const ready = (id: string) => env.sql('live', `SELECT 1 FROM outbox_events WHERE event = 'document.pdf_ready' AND data->>'documentId' = '${id}'`);
    expect(await ready(one.id)).toHaveLength(1);
    expect(await ready(two.id)).toHaveLength(0);
    env.clock.advance(120_001);
    expect(await renderRunner(env).runDue('live')).toBe(1);
    expect(await ready(two.id)).toHaveLength(1);
    const links = await env.sql('live', `SELECT variant FROM pdf_links WHERE document_id IN ('${one.id}', '${two.id}')`);
    expect(links).toHaveLength(4);
  });

  it('renders credit notes, receipts and the business branding frozen at issue', async () => {
    const logo = `data:image/png;base64,${sampleLogoPng().toString('base64')}`;
    const b = await env.business(a.live, { branding: { accentColor: '#AA3300', template: 'stripe', tagline: 'טעים ומהיר', logo } });
    const doc = await issueDoc(env, a.live, b.id, { docType: 320, lines: [line()], payments: [{ method: 'bit', amount: 23_600 }] });
    const credit = await env.call('POST', pdfPath(b.id, doc.id, 'credit-note'), { key: a.live, body: { reason: 'החזרה' } });
    expect(credit.status).toBe(201);
    // Branding changes after issue do not change what the documents say.
    await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.live, body: { branding: { tagline: 'סלוגן חדש' } } });
    await renderRunner(env).runDue('live');
    const pdf320 = (await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live })).raw;
    const text320 = await pdfText(pdf320);
    expect(text320).toContain('חשבונית מס / קבלה');
    expect(text320).toContain('ביט');
    expect(text320).toContain('טעים ומהיר');
    expect(text320).not.toContain('סלוגן חדש');
    expect(pdf320.toString('latin1')).toMatch(/\/Subtype\s*\/Image/); // the logo frozen at issue
    const text330 = await pdfText((await env.call('POST', pdfPath(b.id, credit.body.document.id, 'print'), { key: a.live })).raw);
    expect(text330).toContain('חשבונית מס זיכוי');
    expect(text330).toContain("זיכוי עבור: חשבונית מס / קבלה מס' 1");
    expect(text330).toContain('החזרה');
  });

  it('retries a failing render with backoff; the document stays issued', async () => {
    const dir = tempDataDir();
    const { writeFileSync } = await import('node:fs');
    const badP12 = path.join(dir, 'bad.p12');
    writeFileSync(badP12, 'not a pkcs12 file');
    const env2 = await createTestEnv({ env: { DATA_DIR: dir, PDF_SIGNING_P12_PATH: badP12, PDF_SIGNING_P12_PASSWORD: 'x' }, clock: env.clock });
    try {
      const a2 = await env2.account();
      const b = await env2.business(a2.live);
      const doc = await issueDoc(env2, a2.live, b.id);
      expect(await renderRunner(env2).runDue('live')).toBe(1);
      const [job] = await env2.sql<any>(
        'live',
        `SELECT attempts, done_at, failed_at, run_at, last_error FROM jobs WHERE kind = 'document.render' AND ref_id = '${doc.id}'`,
      );
      expect(job.attempts).toBe(1);
      expect(job.done_at).toBeNull();
      expect(job.failed_at).toBeNull();
      expect(new Date(job.run_at).getTime()).toBe(env.clock.now().getTime() + 2_000);
      const print = await env2.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a2.live });
      expect(print.status).toBe(409);
      expect(print.body.reason).toBe('pdf_pending');
      const read = await env2.call('GET', `/v1/businesses/${b.id}/documents/${doc.id}`, { key: a2.live });
      expect(read.body.document).toMatchObject({ status: 'issued', docNumber: 1, files: null });
      // The next issue still takes the next number: numbering never rolls back.
      const next = await issueDoc(env2, a2.live, b.id);
      expect(next.docNumber).toBe(2);
    } finally {
      await env2.close();
    }
  });
});

describe('production without a signing certificate', () => {
  it('live documents wait (no attempts used up) while the sandbox signs with the self-signed certificate', async () => {
    const env2 = await createTestEnv({ env: { PINKAS_ENV: 'production', DATA_DIR: tempDataDir() }, clock: env.clock });
    try {
      const a2 = await env2.account();
      const live = await env2.business(a2.live);
      const liveDoc = await issueDoc(env2, a2.live, live.id);
      expect(await renderRunner(env2).runDue('live')).toBe(1);
      const [job] = await env2.sql<any>(
        'live',
        `SELECT attempts, done_at, failed_at, run_at, last_error FROM jobs WHERE kind = 'document.render' AND ref_id = '${liveDoc.id}'`,
      );
      expect(job).toMatchObject({ attempts: 0, done_at: null, failed_at: null });
      expect(job.last_error).toMatch(/PDF_SIGNING_P12_PATH/);
      expect(new Date(job.run_at).getTime()).toBe(env.clock.now().getTime() + 60_000);
      expect((await env2.call('POST', pdfPath(live.id, liveDoc.id, 'print'), { key: a2.live })).body.reason).toBe('pdf_pending');

      const sandbox = await env2.business(a2.test);
      const sandboxDoc = await issueDoc(env2, a2.test, sandbox.id);
      expect(await renderRunner(env2).runDue('sandbox')).toBe(1);
      const print = await env2.call('POST', pdfPath(sandbox.id, sandboxDoc.id, 'print'), { key: a2.test });
      expect(print.headers['x-print-variant']).toBe('origin');
      expect(checkPdfSignature(print.raw).signerCommonName).toMatch(/self-signed/);
    } finally {
      await env2.close();
    }
  });
});

describe('drafts', () => {
  it('a draft prints as an unsigned watermarked preview, not logged', async () => {
    const b = await env.business(a.live);
    const draft = await env.call('POST', `/v1/businesses/${b.id}/documents`, { key: a.live, body: { docType: 305, lines: [line()] } });
    const res = await env.call('POST', pdfPath(b.id, draft.body.document.id, 'print'), { key: a.live });
    expect(res.status).toBe(200);
    expect(res.headers['x-print-variant']).toBe('draft');
    expect(res.raw.toString('latin1')).not.toContain('/ByteRange');
    const text = await pdfText(res.raw);
    expect(text).toContain('טיוטה');
    expect(text).toContain('₪236.00');
    const log = await env.call('GET', pdfPath(b.id, draft.body.document.id, 'prints'), { key: a.live });
    expect(log.body.prints).toEqual([]);
    expect(log.body.printCount).toBe(0);
    const share = await env.call('POST', pdfPath(b.id, draft.body.document.id, 'share'), { key: a.live });
    expect(share.status).toBe(409);
  });
});

describe('share and the public link', () => {
  it('shares the origin once, then copies; the link needs no key', async () => {
    const { b, doc } = await issuedAndRendered();
    const s1 = await env.call('POST', pdfPath(b.id, doc.id, 'share'), { key: a.live });
    expect(s1.status).toBe(200);
    expect(s1.body).toMatchObject({ ok: true, variant: 'origin' });
    expect(s1.body.path).toBe(`/api/docs/${s1.body.slug}/d.pdf`);
    expect(s1.body.url).toBe(`https://pinkas.example${s1.body.path}`);
    expect(s1.body.warnings).toEqual([expect.objectContaining({ code: 'no_digital_consent' })]);

    const pub = await env.call('GET', s1.body.path);
    expect(pub.status).toBe(200);
    expect(pub.headers['content-type']).toBe('application/pdf');
    expect(pub.headers['x-service-mode']).toBe('live');
    expect(pub.headers['x-print-variant']).toBe('origin');
    expect(checkPdfSignature(pub.raw)).toMatchObject({ digestMatches: true, signatureValid: true });

    env.clock.advance(1_000);
    const s2 = await env.call('POST', pdfPath(b.id, doc.id, 'share'), { key: a.live, body: { kind: 'auto' } });
    expect(s2.body.variant).toBe('copy');
    expect(s2.body.slug).not.toBe(s1.body.slug);
    const originAgain = await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live, body: { kind: 'origin' } });
    expect(originAgain.status).toBe(409);
    const log = await env.call('GET', pdfPath(b.id, doc.id, 'prints'), { key: a.live });
    expect(log.body.prints.map((p: any) => `${p.variant}/${p.channel}`)).toEqual(['origin/share', 'copy/share']);
  });

  it('finds sandbox links too, answers 404 for unknown slugs', async () => {
    const { b, doc } = await issuedAndRendered(a.test);
    const s = await env.call('POST', pdfPath(b.id, doc.id, 'share'), { key: a.test });
    expect(s.status).toBe(200);
    const pub = await env.call('GET', s.body.path);
    expect(pub.status).toBe(200);
    expect(pub.headers['x-service-mode']).toBe('sandbox');
    const unknown = await env.call('GET', `/api/docs/${'A'.repeat(32)}/d.pdf`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: expect.any(String), reason: 'not_found', requestId: expect.stringMatching(/^req_/) });
    expect((await env.call('GET', '/api/docs/short/d.pdf')).status).toBe(404);
  });

  it('no warning when the saved party consented to digital documents', async () => {
    const b = await env.business(a.live);
    const party = await env.call('POST', `/v1/businesses/${b.id}/parties`, {
      key: a.live,
      body: { name: 'לקוח מסכים', taxId: TAX_IDS.person2, digitalDocConsentAt: '2026-01-01T00:00:00.000Z' },
    });
    expect(party.status).toBe(201);
    const doc = await issueDoc(env, a.live, b.id, { party: { partyId: party.body.party.id } });
    await renderRunner(env).runDue('live');
    const s = await env.call('POST', pdfPath(b.id, doc.id, 'share'), { key: a.live, body: { kind: 'copy' } });
    expect(s.body.variant).toBe('copy');
    expect(s.body.warnings).toEqual([]);
  });

  it('validates the body and refuses other tenants', async () => {
    const { b, doc } = await issuedAndRendered();
    const bad = await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live, body: { kind: 'first' } });
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe('validation');
    const extra = await env.call('POST', pdfPath(b.id, doc.id, 'share'), { key: a.live, body: { kind: 'copy', x: 1 } });
    expect(extra.status).toBe(400);
    expect(extra.body.error).toMatch(/x/);
    const other = await env.account();
    expect((await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: other.live })).status).toBe(404);
    expect((await env.call('POST', pdfPath(b.id, 'doc_nope', 'print'), { key: a.live })).status).toBe(404);
    const noScope = await a.mint({ scopes: ['businesses'] });
    expect((await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: noScope.secret })).status).toBe(403);
  });
});

describe('email without SMTP', () => {
  it('answers 503 unconfigured and hands nothing out', async () => {
    const { b, doc } = await issuedAndRendered();
    const res = await env.call('POST', pdfPath(b.id, doc.id, 'email'), { key: a.live, body: { to: ['x@customer.example'] } });
    expect(res.status).toBe(503);
    expect(res.body.reason).toBe('unconfigured');
    const [row] = await env.sql<any>('live', `SELECT origin_handed_out_at FROM documents WHERE id = '${doc.id}'`);
    expect(row.origin_handed_out_at).toBeNull();
  });
});

describe('the origin is handed out exactly once', () => {
  it('under racing print, share and email-less requests', async () => {
    const { b, doc } = await issuedAndRendered();
    const calls = Array.from({ length: 12 }, (_, i) =>
      env.call('POST', pdfPath(b.id, doc.id, i % 2 ? 'print' : 'share'), { key: a.live, body: { kind: i % 3 === 0 ? 'origin' : 'auto' } }),
    );
    const results = await Promise.all(calls);
    const variants = results.map((r) => (r.status === 200 ? (r.headers['x-print-variant'] ?? r.body.variant) : `${r.status}:${r.body.reason}`));
    expect(variants.filter((v) => v === 'origin')).toHaveLength(1);
    expect(variants.every((v) => v === 'origin' || v === 'copy' || v === '409:conflict')).toBe(true);
    const rows = await env.sql<any>(
      'live',
      `SELECT variant, count(*)::int AS n FROM document_prints WHERE document_id = '${doc.id}' GROUP BY variant ORDER BY variant`,
    );
    const okCount = results.filter((r) => r.status === 200).length;
    expect(rows).toEqual([
      { variant: 'copy', n: okCount - 1 },
      { variant: 'origin', n: 1 },
    ]);
    const [d] = await env.sql<any>('live', `SELECT print_count FROM documents WHERE id = '${doc.id}'`);
    expect(d.print_count).toBe(okCount);
  });

  it('the database refuses a second origin, edits of the log and rollbacks of the counters', async () => {
    const { b, doc } = await issuedAndRendered();
    expect((await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live })).headers['x-print-variant']).toBe('origin');
    const [p] = await env.sql<any>('live', `SELECT * FROM document_prints WHERE document_id = '${doc.id}'`);
    const attacks = [
      `INSERT INTO document_prints(id, business_id, document_id, variant, channel, file_id, created_at)
         VALUES ('prn_x', '${b.id}', '${doc.id}', 'origin', 'print', '${p.file_id}', now())`,
      `UPDATE document_prints SET variant = 'copy' WHERE id = '${p.id}'`,
      `DELETE FROM document_prints WHERE id = '${p.id}'`,
      `UPDATE documents SET origin_handed_out_at = NULL WHERE id = '${doc.id}'`,
      `UPDATE documents SET origin_handed_out_at = now() + interval '1 day' WHERE id = '${doc.id}'`,
      `UPDATE documents SET print_count = 0 WHERE id = '${doc.id}'`,
      `UPDATE documents SET pdf_files = jsonb_build_object('origin', jsonb_build_object('fileId', '${p.file_id}')) WHERE id = '${doc.id}'`,
      `UPDATE pdf_links SET file_id = '${p.file_id}' WHERE document_id = '${doc.id}' AND variant = 'copy'`,
      `DELETE FROM pdf_links WHERE document_id = '${doc.id}'`,
      `INSERT INTO pdf_links(slug, business_id, document_id, variant, file_id, created_at) VALUES ('${'b'.repeat(32)}', '${b.id}', '${doc.id}', 'origin', '${p.file_id}', now())`,
      `INSERT INTO pdf_links(slug, business_id, document_id, variant, file_id, created_at) VALUES ('short', '${b.id}', 'doc_none', 'copy', '${p.file_id}', now())`,
    ];
    for (const attack of attacks) {
      await expect(env.sql('live', attack), attack).rejects.toThrow();
    }
    const log = await env.sql('live', `SELECT 1 FROM document_prints WHERE document_id = '${doc.id}'`);
    expect(log).toHaveLength(1);
  });
});
