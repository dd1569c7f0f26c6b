import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { issueFixture } from '../exports/fixture.ts';
import { pdfPath, renderRunner, tempDataDir } from '../prints/helpers.ts';
import { dataUri, jpeg } from '../expenses/fixtures.ts';
import { verifyBooks as verifyAuditChains } from '../../src/documents/audit-check.ts';
import { pdfFilesOf } from '../helpers/pdf-files.ts';

// Issue 16 item 6: every rule that protects the books holds against raw SQL as the application's
// role. Real data is made through the API; each attack must be refused by the database (the
// message names the rule) and leave the rows exactly as they were.
let env: TestEnv;
let a: TestAccount;
let bid: string;
let docs: Record<string, any>;
let expense: any;
let pdf: { origin: { fileId: string; slug: string }; copy: { fileId: string; slug: string } };
let exportRunId: string;
let backupId: string;

const q = (v: string) => `'${v.replace(/'/g, "''")}'`;

async function rows(text: string): Promise<unknown[]> {
  return env.sql('sandbox', text);
}

/** The attack must fail with `why`, and `probe` must read the same rows before and after. */
async function refused(statement: string, why: RegExp, probe: string): Promise<void> {
  const before = await rows(probe);
  expect(before.length, probe).toBeGreaterThan(0);
  const err = await env.sql('sandbox', statement).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, `the database accepted: ${statement}`).not.toBeNull();
  const msg = String((err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message);
  expect(msg, statement).toMatch(why);
  expect(await rows(probe), statement).toEqual(before);
}

beforeAll(async () => {
  env = await createTestEnv({ env: { DATA_DIR: tempDataDir(), PUBLIC_BASE_URL: 'https://pinkas.example' } });
  a = await env.account();
  bid = (await env.business(a.test)).id;
  // Every issuable type (305, 320, 400, anonymous 400) and a credit note (330).
  docs = await issueFixture(env, a, bid);
  expect(await renderRunner(env).runDue('sandbox')).toBeGreaterThan(0);
  const [d] = await env.sql<any>('sandbox', `SELECT ${pdfFilesOf(q(docs.inv.id))} AS pdf_files`);
  pdf = typeof d.pdf_files === 'string' ? JSON.parse(d.pdf_files) : d.pdf_files;
  expect(pdf.origin.fileId).toMatch(/^file_/);
  expect((await env.call('POST', pdfPath(bid, docs.inv.id, 'print'), { key: a.test })).status).toBe(200);
  expect((await env.call('POST', pdfPath(bid, docs.inv.id, 'share'), { key: a.test })).status).toBeLessThan(300);

  const p = `/v1/businesses/${bid}/expenses`;
  const up = await env.call('POST', `${p}/upload`, { key: a.test, body: { file: dataUri('image/jpeg', await jpeg()) } });
  expect(up.status).toBe(201);
  await env.call('PATCH', `${p}/${up.body.expense.id}`, {
    key: a.test,
    body: { categoryKey: 'office', supplier: { name: 'ספק' }, supplierDocDate: '2026-02-01', amountIncVat: 11800, vatAmount: 1800 },
  });
  const rec = await env.call('POST', `${p}/${up.body.expense.id}/record`, { key: a.test });
  expect(rec.status, JSON.stringify(rec.body)).toBeLessThan(300);
  expense = rec.body.expense;
  expect(expense.status).toBe('recorded');

  const ex = await env.call('POST', `/v1/businesses/${bid}/exports/openfrmt`, { key: a.test, body: { from: '2026-03-01', to: '2026-03-31' } });
  expect(ex.status, JSON.stringify(ex.body)).toBe(201);
  const [run] = await env.sql<any>('sandbox', `SELECT id, status FROM export_runs WHERE business_id = ${q(bid)}`);
  expect(run.status).toBe('completed');
  exportRunId = run.id;
  const bk = await env.call('POST', `/v1/businesses/${bid}/backups`, { key: a.test });
  expect(bk.status, JSON.stringify(bk.body)).toBe(201);
  backupId = (await env.sql<any>('sandbox', `SELECT id FROM backups WHERE business_id = ${q(bid)}`))[0].id;
});
afterAll(async () => env?.close());

describe('issued documents (documents_frozen_after_issue, documents_never_delete_issued, documents_no_truncate)', () => {
  const kinds = ['inv', 'invReceipt', 'receipt', 'cash', 'credit'] as const;
  const attacks: [string, string][] = [
    ['total', 'total_inc_vat = total_inc_vat + 100'],
    ['VAT', 'vat_amount = vat_amount + 1'],
    ['lines', `lines = lines || '[{"description":"forged","quantity":1,"unitPriceExVat":1}]'::jsonb`],
    ['payments', `payments = payments || '[{"method":1,"amount":1}]'::jsonb`],
    ['snapshot', `snapshot = jsonb_set(snapshot, '{totals,totalIncVat}', '1')`],
    ['snapshot note', `snapshot = jsonb_set(snapshot, '{note}', '"forged"')`],
    ['number', 'doc_number = doc_number + 1000'],
    ['back to draft', `status = 'draft', doc_number = NULL, issued_at = NULL, snapshot = NULL`],
    ['date', `document_date = '2020-01-01'`],
  ];
  for (const kind of kinds) {
    it(`${kind}: UPDATE of content, lines, payments, snapshot; DELETE`, async () => {
      const id = docs[kind].id;
      const probe = `SELECT * FROM documents WHERE id = ${q(id)}`;
      for (const [, set] of attacks) {
        await refused(`UPDATE documents SET ${set} WHERE id = ${q(id)}`, /is issued: its content is frozen/, probe);
      }
      await refused(`DELETE FROM documents WHERE id = ${q(id)}`, /is issued: it is never deleted/, probe);
    });
  }
  it('the set-once columns stay set (credit link, PDFs, print count)', async () => {
    const probe = `SELECT * FROM documents WHERE id = ${q(docs.inv.id)}`;
    await refused(`UPDATE documents SET cancelled_by_document_id = NULL WHERE id = ${q(docs.inv.id)}`, /cancelled_by_document_id is set once/, probe);
    // The PDFs are named by pdf_links (append-only, below); the row's own column is frozen with the content.
    const forged = JSON.stringify({ origin: pdf.copy, copy: pdf.copy });
    await refused(`UPDATE documents SET pdf_files = ${q(forged)}::jsonb WHERE id = ${q(docs.inv.id)}`, /is issued: its content is frozen/, probe);
    await refused(`UPDATE documents SET print_count = 0 WHERE id = ${q(docs.inv.id)}`, /print_count only increases/, probe);
    await refused(`UPDATE documents SET origin_handed_out_at = NULL WHERE id = ${q(docs.inv.id)}`, /origin is handed out once/, probe);
  });
  it('TRUNCATE', async () => {
    await refused('TRUNCATE documents CASCADE', /is append-only: TRUNCATE refused/, `SELECT id FROM documents WHERE business_id = ${q(bid)} ORDER BY id`);
  });
});

describe('counters (document_counters_forward, document_counters_no_delete, document_counters_no_truncate)', () => {
  const probe = () => `SELECT * FROM document_counters WHERE business_id = ${q(bid)} ORDER BY doc_type`;
  it('never move backwards or lose their start', async () => {
    await refused(`UPDATE document_counters SET last_number = last_number - 1 WHERE business_id = ${q(bid)} AND doc_type = 400`, /only moves forward/, probe());
    await refused(`UPDATE document_counters SET last_number = NULL WHERE business_id = ${q(bid)} AND doc_type = 305`, /only moves forward/, probe());
    await refused(`UPDATE document_counters SET start_number = 500 WHERE business_id = ${q(bid)} AND doc_type = 305`, /start_number is fixed/, probe());
  });
  it('move only with the document that takes the number: a jump forward is refused at commit', async () => {
    await refused(
      `UPDATE document_counters SET last_number = last_number + 1 WHERE business_id = ${q(bid)} AND doc_type = 305`,
      /without the document/,
      probe(),
    );
    await refused(`UPDATE document_counters SET last_number = last_number + 5 WHERE business_id = ${q(bid)} AND doc_type = 305`, /one step at a time/, probe());
  });
  it('rows are never deleted or truncated', async () => {
    await refused(`DELETE FROM document_counters WHERE business_id = ${q(bid)}`, /document_counters is append-only: DELETE refused/, probe());
    await refused('TRUNCATE document_counters', /document_counters is append-only: TRUNCATE refused/, probe());
  });
});

describe('recorded expenses (expenses_immutable, expenses_no_truncate)', () => {
  it('UPDATE, DELETE, TRUNCATE', async () => {
    const probe = `SELECT * FROM expenses WHERE id = ${q(expense.id)}`;
    await refused(`UPDATE expenses SET amount_inc_vat = 1, amount_ex_vat = -1799 WHERE id = ${q(expense.id)}`, /recorded expense is immutable/, probe);
    await refused(`UPDATE expenses SET deductible_vat = 0 WHERE id = ${q(expense.id)}`, /recorded expense is immutable/, probe);
    await refused(`DELETE FROM expenses WHERE id = ${q(expense.id)}`, /cannot be deleted/, probe);
    await refused('TRUNCATE expenses CASCADE', /expenses is append-only: TRUNCATE refused/, probe);
  });
});

describe('stored files (files_immutable, files_keep_issued, files_no_truncate)', () => {
  it('the PDFs of an issued document never change and are never deleted', async () => {
    for (const fileId of [pdf.origin.fileId, pdf.copy.fileId]) {
      const probe = `SELECT id, sha256, size, mime, md5(content) AS md5 FROM files WHERE id = ${q(fileId)}`;
      await refused(`UPDATE files SET content = 'forged'::bytea WHERE id = ${q(fileId)}`, /stored content is immutable/, probe);
      await refused(`UPDATE files SET sha256 = md5('x') WHERE id = ${q(fileId)}`, /stored content is immutable/, probe);
      await refused(`DELETE FROM files WHERE id = ${q(fileId)}`, new RegExp(`belongs to issued document ${docs.inv.id}`), probe);
    }
  });
  it('the receipt of a recorded expense is never deleted', async () => {
    const probe = `SELECT id, md5(content) AS md5 FROM files WHERE id = ${q(expense.receiptFileId)}`;
    await refused(`UPDATE files SET content = 'x'::bytea WHERE id = ${q(expense.receiptFileId)}`, /immutable/, probe);
    await refused(`DELETE FROM files WHERE id = ${q(expense.receiptFileId)}`, /receipt of a recorded expense/, probe);
  });
  it('TRUNCATE', async () => {
    await refused('TRUNCATE files CASCADE', /is append-only: TRUNCATE refused/, `SELECT id FROM files WHERE business_id = ${q(bid)} ORDER BY id`);
  });
});

describe('the audit trail (audit_log_no_update, audit_log_no_truncate, audit_chain_heads_forward, audit_chain_heads_no_truncate)', () => {
  const log = () => `SELECT * FROM audit_log WHERE chain = ${q(`biz:${bid}`)} ORDER BY seq`;
  const head = () => `SELECT * FROM audit_chain_heads WHERE chain = ${q(`biz:${bid}`)}`;
  it('audit_log refuses UPDATE, DELETE, TRUNCATE', async () => {
    await refused(`UPDATE audit_log SET after = '{}'::jsonb WHERE entity_id = ${q(docs.inv.id)}`, /audit_log is append-only: UPDATE refused/, log());
    await refused(`DELETE FROM audit_log WHERE chain = ${q(`biz:${bid}`)}`, /audit_log is append-only: DELETE refused/, log());
    await refused('TRUNCATE audit_log', /audit_log is append-only: TRUNCATE refused/, log());
  });
  it('a chain head only moves forward onto a row of its chain, and is never removed', async () => {
    await refused(`UPDATE audit_chain_heads SET last_seq = last_seq - 1 WHERE chain = ${q(`biz:${bid}`)}`, /only moves forward/, head());
    await refused(`UPDATE audit_chain_heads SET last_hash = md5('x') || md5('y') WHERE chain = ${q(`biz:${bid}`)}`, /only moves forward/, head());
    await refused(
      `UPDATE audit_chain_heads SET last_seq = last_seq + 1000, last_hash = md5('x') WHERE chain = ${q(`biz:${bid}`)}`,
      /must point at a row of the chain/,
      head(),
    );
    await refused(`DELETE FROM audit_chain_heads WHERE chain = ${q(`biz:${bid}`)}`, /is never deleted/, head());
    await refused('TRUNCATE audit_chain_heads', /audit_chain_heads is append-only: TRUNCATE refused/, head());
  });
});

describe('the print log and public links (document_prints_no_update, document_prints_no_truncate, pdf_links_no_update, pdf_links_no_truncate)', () => {
  it('document_prints refuses UPDATE, DELETE, TRUNCATE', async () => {
    const probe = `SELECT * FROM document_prints WHERE document_id = ${q(docs.inv.id)} ORDER BY id`;
    expect(await rows(probe)).toHaveLength(2);
    await refused(`UPDATE document_prints SET variant = 'copy' WHERE document_id = ${q(docs.inv.id)}`, /document_prints is append-only/, probe);
    await refused(`UPDATE document_prints SET channel = 'email' WHERE document_id = ${q(docs.inv.id)}`, /document_prints is append-only/, probe);
    await refused(`DELETE FROM document_prints WHERE document_id = ${q(docs.inv.id)}`, /document_prints is append-only/, probe);
    await refused('TRUNCATE document_prints', /document_prints is append-only/, probe);
  });
  it('pdf_links refuses UPDATE, DELETE, TRUNCATE', async () => {
    const probe = `SELECT * FROM pdf_links WHERE document_id = ${q(docs.inv.id)} ORDER BY slug`;
    expect(await rows(probe)).toHaveLength(2);
    await refused(`UPDATE pdf_links SET slug = ${q('z'.repeat(32))} WHERE slug = ${q(pdf.copy.slug)}`, /append-only/, probe);
    await refused(`UPDATE pdf_links SET file_id = ${q(pdf.origin.fileId)} WHERE slug = ${q(pdf.copy.slug)}`, /append-only/, probe);
    await refused(`DELETE FROM pdf_links WHERE document_id = ${q(docs.inv.id)}`, /append-only/, probe);
    await refused('TRUNCATE pdf_links', /pdf_links is append-only: TRUNCATE refused/, probe);
  });
});

describe('export runs (export_runs_frozen, export_runs_no_truncate) and backups (backups_immutable, backups_no_truncate)', () => {
  it('a finished export run is frozen and kept', async () => {
    const probe = `SELECT * FROM export_runs WHERE id = ${q(exportRunId)}`;
    await refused(`UPDATE export_runs SET status = 'failed', error = 'x' WHERE id = ${q(exportRunId)}`, /is frozen/, probe);
    await refused(`UPDATE export_runs SET record_counts = '{}'::jsonb WHERE id = ${q(exportRunId)}`, /is frozen/, probe);
    await refused(`UPDATE export_runs SET file_id = ${q(pdf.copy.fileId)} WHERE id = ${q(exportRunId)}`, /is frozen/, probe);
    await refused(`DELETE FROM export_runs WHERE id = ${q(exportRunId)}`, /is never deleted/, probe);
    await refused('TRUNCATE export_runs', /export_runs is append-only: TRUNCATE refused/, probe);
  });
  it('a backup row is write-once', async () => {
    const probe = `SELECT * FROM backups WHERE id = ${q(backupId)}`;
    await refused(`UPDATE backups SET summary = '{}'::jsonb WHERE id = ${q(backupId)}`, /backups is append-only: UPDATE refused/, probe);
    await refused(`DELETE FROM backups WHERE id = ${q(backupId)}`, /backups is append-only: DELETE refused/, probe);
    await refused('TRUNCATE backups', /backups is append-only: TRUNCATE refused/, probe);
  });
});

describe('after every attack', () => {
  it('audit verify finds the books intact', async () => {
    const check = await verifyAuditChains(env.db.sandbox.db);
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
    expect(check.documents).toBe(5);
  });
});
