import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';
import iconv from 'iconv-lite';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { TEST_MAKER_TAX_ID } from '../../src/platform/config.ts';
import { getOwnedBusiness } from '../../src/businesses/records.ts';
import { runOpenfrmtExport } from '../../src/exports/run.ts';
import { issueDoc, issueFixture } from './fixture.ts';
import { verifyExportThroughApi } from '../verifier/api.ts';
import { formatDefect } from '../verifier/openfrmt-verifier.ts';

const GOLDEN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden');

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

async function exportRun(bid: string, body: Record<string, unknown>, key = a.test) {
  return env.call('POST', `/v1/businesses/${bid}/exports/openfrmt`, { key, body });
}

async function download(fileId: string): Promise<Record<string, Buffer>> {
  const f = await env.call('GET', `/v1/files/${fileId}`, { key: a.test });
  expect(f.status).toBe(200);
  expect(f.headers['content-type']).toBe('application/zip');
  return Object.fromEntries(Object.entries(unzipSync(new Uint8Array(f.raw))).map(([n, c]) => [n, Buffer.from(c)]));
}

/** The primary id is random per run: masked before comparing with the golden files. */
function maskPrimaryId(file: Buffer, id: string): Buffer {
  return Buffer.from(file.toString('latin1').split(id).join('P'.repeat(15)), 'latin1');
}

const records = (b: Buffer) => iconv.decode(b, 'iso-8859-8').split('\r\n').slice(0, -1);
const col = (rec: string, from: number, to: number) => rec.slice(from - 1, to);

describe('OPENFRMT export of the fixed data set', () => {
  let bid: string;
  let run: any;
  let files: Record<string, Buffer>;
  let dir: string;
  beforeAll(async () => {
    // Single-entry books: the golden files hold the documents alone (the ledger's B100/B110: 'double-entry books' below).
    const b = await env.business(a.test, { bookkeeping: 'single' });
    bid = b.id;
    await issueFixture(env, a, bid);
    env.clock.advance(60_000);
    const r = await exportRun(bid, { from: '2026-03-01', to: '2026-03-31' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    run = r.body;
    files = await download(run.file.id);
    dir = run.exportRun.directory;
  });

  it('answers the run, its verification and the file; the zip holds the mandated tree', () => {
    // Business tax id 516179157, production 2026-03-01 10:01 Israel time (08:01Z).
    expect(dir).toBe('OPENFRMT/51617915.26/03011001');
    expect(Object.keys(files).sort()).toEqual([`${dir}/BKMVDATA.TXT`, `${dir}/INI.TXT`]);
    expect(run.exportRun).toMatchObject({ status: 'completed', from: '2026-03-01', to: '2026-03-31', fileId: run.file.id });
    expect(run.exportRun.recordCounts).toEqual({ A100: 1, C100: 5, D110: 5, D120: 4, Z900: 1, total: 16 });
    expect(run.file).toMatchObject({ mime: 'application/zip', size: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const v = run.exportRun.verification;
    expect(v).toMatchObject({ ok: true, issueCount: 0, records: 16, documentsRead: 5, documentsWritten: 5, documentsMatchSource: true });
    expect(v.byDocType.map((t: any) => [t.docType, t.match, t.file.count, t.file.incVat])).toEqual([
      [305, true, 1, 57_230],
      [320, true, 1, 118_000],
      [330, true, 1, 57_230],
      [400, true, 2, 55_000],
    ]);
  });

  it('matches the golden files byte for byte (primary id masked)', () => {
    const id = records(files[`${dir}/BKMVDATA.TXT`])[0].slice(22, 37);
    expect(id).toMatch(/^\d{15}$/);
    const got = { 'INI.TXT': maskPrimaryId(files[`${dir}/INI.TXT`], id), 'BKMVDATA.TXT': maskPrimaryId(files[`${dir}/BKMVDATA.TXT`], id) };
    for (const [name, bytes] of Object.entries(got)) {
      const goldenPath = path.join(GOLDEN, name);
      if (process.env.UPDATE_GOLDEN === '1' || !existsSync(goldenPath)) {
        mkdirSync(GOLDEN, { recursive: true });
        writeFileSync(goldenPath, bytes);
      }
      expect(bytes.equals(readFileSync(goldenPath)), `${name} differs from ${goldenPath}`).toBe(true);
    }
  });

  it('writes the hand-computed figures into their columns', () => {
    const recs = records(files[`${dir}/BKMVDATA.TXT`]);
    expect(recs.map((r) => r.slice(0, 4))).toEqual([
      'A100',
      'C100',
      'D110',
      'D110',
      'C100',
      'D110',
      'D120',
      'C100',
      'D110',
      'D110',
      'C100',
      'D120',
      'D120',
      'C100',
      'D120',
      'Z900',
    ]);
    recs.forEach((r, i) => expect(col(r, 5, 13)).toBe(String(i + 1).padStart(9, '0')));
    const [inv, invReceipt, credit, receipt, cash] = recs.filter((r) => r.startsWith('C100'));
    // 305: 490.00 before the document discount, −5.00, 485.00, VAT 87.30, 572.30; Hebrew name folded (״ → ").
    expect(col(inv, 23, 25)).toBe('305');
    expect(col(inv, 58, 107).trimEnd()).toBe('חברת אלפא בע"מ');
    expect(col(inv, 253, 261)).toBe(TAX_IDS.company2);
    expect(col(inv, 288, 374)).toBe('+00000000049000-00000000000500+00000000048500+00000000008730+00000000057230+00000000000');
    expect(col(inv, 400, 400)).toBe(' ');
    expect(col(inv, 46, 57)).toBe('202603011000');
    // 320 with withholding 50.00 (positive).
    expect(col(invReceipt, 348, 374)).toBe('+00000000118000+00000005000');
    // 330: positive amounts, its lines name the 305 as base document.
    expect(col(credit, 23, 25)).toBe('330');
    expect(col(credit, 318, 362)).toBe('+00000000048500+00000000008730+00000000057230');
    const creditLines = recs.filter((r) => r.startsWith('D110') && col(r, 23, 25) === '330');
    expect(creditLines.map((r) => col(r, 50, 72).trimEnd())).toEqual(['3051', '3051']);
    // 400: received 500.00 in 1219/1221/1223, VAT 0, withholding 25.00 (clarification 4).
    expect(col(receipt, 288, 374)).toBe('+00000000050000+00000000000000+00000000050000+00000000000000+00000000050000+00000002500');
    expect(col(cash, 58, 107).trimEnd()).toBe('לקוח מזדמן');
    // An occasional customer: the document's own key (no shared key), 1225.
    expect(col(cash, 375, 389).trimEnd()).toBe('400-2');
    expect(col(receipt, 375, 389).trimEnd()).toBe(TAX_IDS.person3);
    // D120: the cheque, the bit payment written as 9, the card (max → 6, installments → 2).
    const payments = recs.filter((r) => r.startsWith('D120'));
    const cheque = payments.find((r) => col(r, 50, 50) === '2')!;
    expect(col(cheque, 51, 118)).toBe('0000000012' + '0000000345' + '000000000123456' + '0000001001' + '20260315' + '+00000000030000');
    expect(payments.filter((r) => col(r, 50, 50) === '9').map((r) => col(r, 104, 118))).toEqual(['+00000000020000']);
    const card = payments.find((r) => col(r, 50, 50) === '3')!;
    expect(col(card, 96, 140)).toBe('20260401+00000000113000' + '6' + 'ויזה'.padEnd(20) + '2');
    // No M100: no inventory is kept, and none is made up from the lines' SKUs.
    expect(recs.some((r) => r.startsWith('M100'))).toBe(false);
  });

  it('INI.TXT: A000 with the totals, the shared primary id and the summary lines', () => {
    const ini = records(files[`${dir}/INI.TXT`]);
    const bk = records(files[`${dir}/BKMVDATA.TXT`]);
    expect(ini.slice(1)).toEqual(['C100000000000000005', 'D110000000000000005', 'D120000000000000004']);
    const a000 = ini[0];
    expect(a000).toHaveLength(466);
    expect(col(a000, 10, 24)).toBe('000000000000016');
    // 1009: the maker's VAT number from OPENFRMT_MAKER_TAX_ID (the test environment's default), never zeros.
    expect(col(a000, 105, 113)).toBe(TEST_MAKER_TAX_ID);
    expect(col(a000, 34, 48)).toBe(col(bk[0], 23, 37));
    expect(col(bk[bk.length - 1], 23, 37)).toBe(col(bk[0], 23, 37));
    expect(col(a000, 367, 394)).toBe('20260301' + '20260331' + '20260301' + '1001');
    expect(col(a000, 396, 396)).toBe('1');
  });

  it('keeps the printed outputs (§2.6 / §5.4) in the run', () => {
    const report = run.exportRun.report;
    expect(report.path).toBe('X:\\OPENFRMT\\51617915.26\\03011001');
    expect(report.range).toEqual({ from: '01032026', to: '31032026' });
    expect(report.recordTypes.map((t: any) => [t.code, t.count])).toEqual([
      ['A100', 1],
      ['C100', 5],
      ['D110', 5],
      ['D120', 4],
      ['Z900', 1],
    ]);
    expect(report.documentTypes).toHaveLength(27);
    expect(report.documentTypes.find((t: any) => t.docType === 300)).toMatchObject({ count: 0, total: 0 });
    expect(report.documentTypes.find((t: any) => t.docType === 400)).toMatchObject({ count: 2, total: 55_000 });
  });

  it('lists runs, emits export.completed and audits the run', async () => {
    const list = await env.call('GET', `/v1/businesses/${bid}/exports`, { key: a.test });
    expect(list.status).toBe(200);
    expect(list.body.exportRuns[0]).toMatchObject({ id: run.exportRun.id, status: 'completed', file: { id: run.file.id } });
    const one = await env.call('GET', `/v1/businesses/${bid}/exports/${run.exportRun.id}`, { key: a.test });
    expect(one.body.exportRun.verification.ok).toBe(true);
    const events = await env.sql('sandbox', `SELECT data FROM outbox_events WHERE event = 'export.completed' AND business_id = '${bid}'`);
    expect(events.map((e: any) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data))).toEqual([
      { exportRunId: run.exportRun.id, fileId: run.file.id, recordCount: 16 },
    ]);
    const audit = await env.sql('sandbox', `SELECT action FROM audit_log WHERE entity_id = '${run.exportRun.id}'`);
    expect(audit).toEqual([{ action: 'export.openfrmt' }]);
  });

  it('a second run in the same minute is refused (never a future production minute); the next minute gets it with a new primary id', async () => {
    // 08:01:00Z is taken by the first run: the production time is the real start minute, so no 10:02 is claimed at 10:01.
    env.clock.advance(20_000);
    const busy = await exportRun(bid, { from: '2026-03-01', to: '2026-03-31' });
    expect(busy.status, JSON.stringify(busy.body)).toBe(409);
    expect(busy.body.reason).toBe('conflict');
    expect(busy.headers['retry-after']).toBe('40');
    env.clock.advance(40_000);
    const r = await exportRun(bid, { from: '2026-03-01', to: '2026-03-31' });
    expect(r.status).toBe(201);
    expect(r.body.exportRun.directory).toBe('OPENFRMT/51617915.26/03011002');
    const second = await download(r.body.file.id);
    const id1 = records(files[`${dir}/BKMVDATA.TXT`])[0].slice(22, 37);
    const id2 = records(second[`OPENFRMT/51617915.26/03011002/BKMVDATA.TXT`])[0].slice(22, 37);
    expect(id2).not.toBe(id1);
  });

  it('a finished run is frozen in the database', async () => {
    await expect(env.sql('sandbox', `UPDATE export_runs SET status = 'failed' WHERE id = '${run.exportRun.id}'`)).rejects.toThrow();
    await expect(env.sql('sandbox', `DELETE FROM export_runs WHERE id = '${run.exportRun.id}'`)).rejects.toThrow();
    await expect(env.sql('sandbox', `TRUNCATE export_runs`)).rejects.toThrow();
  });
});

describe('cut and fixed set', () => {
  it('an empty period gives A100 + Z900 and an A000 alone, verified', async () => {
    const b = await env.business(a.test);
    const r = await exportRun(b.id, { from: '2025-01-01', to: '2025-01-31' });
    expect(r.status).toBe(201);
    expect(r.body.exportRun).toMatchObject({ status: 'completed', recordCounts: { A100: 1, Z900: 1, total: 2 } });
    const files = await download(r.body.file.id);
    const d = r.body.exportRun.directory;
    expect(records(files[`${d}/BKMVDATA.TXT`]).map((x) => x.slice(0, 4))).toEqual(['A100', 'Z900']);
    expect(records(files[`${d}/INI.TXT`])).toHaveLength(1);
  });

  it('documents are cut by document date, both ends included', async () => {
    const b = await env.business(a.test);
    for (const documentDate of ['2026-01-31', '2026-02-01', '2026-02-28', '2026-03-01']) {
      await issueDoc(env, a.test, b.id, { docType: 400, documentDate, payments: [{ method: 'cash', amount: 100 }] });
    }
    const r = await exportRun(b.id, { from: '2026-02-01', to: '2026-02-28' });
    expect(r.body.exportRun.recordCounts.C100).toBe(2);
    const files = await download(r.body.file.id);
    const c100 = records(files[`${r.body.exportRun.directory}/BKMVDATA.TXT`]).filter((x) => x.startsWith('C100'));
    expect(c100.map((x) => col(x, 401, 408))).toEqual(['20260201', '20260228']);
  });

  it('a document issued while the export runs does not half-appear', async () => {
    const b = await env.business(a.test);
    for (let i = 0; i < 4; i++) await issueDoc(env, a.test, b.id, { docType: 400, payments: [{ method: 'cash', amount: 100 + i }] });
    env.clock.advance(1_000);
    const business = await getOwnedBusiness(env.s.databases.sandbox.db, a.id, b.id);
    let issuedMidway: any;
    const result = await runOpenfrmtExport(env.s, env.s.databases.sandbox, {
      business,
      range: { from: '2026-01-01', to: '2026-12-31' },
      actor: { accountId: a.id, keyId: a.testKeyId },
      opts: {
        chunkSize: 2,
        afterChunk: async (n) => {
          if (n !== 1) return;
          env.clock.advance(1_000);
          issuedMidway = await issueDoc(env, a.test, b.id, { docType: 400, payments: [{ method: 'cash', amount: 999 }] });
        },
      },
    });
    expect(issuedMidway.docNumber).toBe(5);
    expect(result.exportRun.status).toBe('completed');
    expect(result.exportRun.recordCounts).toMatchObject({ C100: 4, D120: 4 });
    expect(result.exportRun.verification!.ok).toBe(true);
    // The next run has it.
    env.clock.advance(60_000);
    const next = await exportRun(b.id, { from: '2026-01-01', to: '2026-12-31' });
    expect(next.body.exportRun.recordCounts.C100).toBe(5);
  });
});

describe('double-entry books', () => {
  it("an entry dated outside its document's range (moved out of a closed month before issue 29) makes the export not ok", async () => {
    const b = await env.business(a.test, { bookkeeping: 'double' });
    const doc = await issueDoc(env, a.test, b.id, { docType: 400, documentDate: '2026-02-27', payments: [{ method: 'cash', amount: 5_000 }] });
    env.clock.advance(60_000);
    const fine = await exportRun(b.id, { from: '2026-02-01', to: '2026-02-28' });
    expect(fine.body.exportRun.verification.ledger.documentsMatchEntries).toBe(true);
    // What the rule before issue 29 did to a document dated in a closed month: its entry on the first open day.
    await env.sql(
      'sandbox',
      `BEGIN; SET LOCAL session_replication_role = replica;
       UPDATE journal_entries SET entry_date = '2026-03-01' WHERE document_id = '${doc.id}'; COMMIT`,
    );
    for (const range of [
      { from: '2026-02-01', to: '2026-02-28' },
      { from: '2026-03-01', to: '2026-03-31' },
    ]) {
      env.clock.advance(60_000);
      const r = await exportRun(b.id, range);
      const v = r.body.exportRun.verification;
      expect(v.ok, JSON.stringify(range)).toBe(false);
      expect(v.ledger.documentsMatchEntries).toBe(false);
      expect(v.ledger.problems.join('\n')).toMatch(/are not the same documents/);
    }
  });

  it('carry B110 and B100 after the documents; 1013 = 2, 1014 = 1; verified against the trial balance', async () => {
    const b = await env.business(a.test, { bookkeeping: 'double' });
    await issueFixture(env, a, b.id);
    // Opening balances before the range, written by hand.
    const opening = await env.call('POST', `/v1/businesses/${b.id}/ledger/entries`, {
      key: a.test,
      body: {
        date: '2026-02-28',
        description: 'יתרות פתיחה',
        lines: [
          { account: '1230', debit: 1_000_000 },
          { account: '3000', credit: 1_000_000 },
        ],
      },
    });
    expect(opening.status, JSON.stringify(opening.body)).toBe(201);
    env.clock.advance(60_000);
    const r = await exportRun(b.id, { from: '2026-03-01', to: '2026-03-31' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const v = r.body.exportRun.verification;
    expect(v.ok, JSON.stringify(v)).toBe(true);
    expect(v.ledger).toMatchObject({ entriesBalanced: true, accountsComplete: true, accountsMatchLines: true, matchesBooks: true, problems: [] });
    const files = await download(r.body.file.id);
    const bk = records(files[`${r.body.exportRun.directory}/BKMVDATA.TXT`]);
    const ini = records(files[`${r.body.exportRun.directory}/INI.TXT`]);
    // The order: A100, the documents, B110, B100, Z900.
    const codes = bk.map((x) => x.slice(0, 4));
    expect(codes.lastIndexOf('D120') < codes.indexOf('B110') && codes.lastIndexOf('B110') < codes.indexOf('B100') && codes.at(-1) === 'Z900').toBe(true);
    expect(col(ini[0], 185, 185)).toBe('2');
    expect(col(ini[0], 186, 186)).toBe('1');
    expect(ini.filter((x) => x.startsWith('B100') || x.startsWith('B110')).map((x) => x.slice(0, 4))).toEqual(['B100', 'B110']);
    // B110 of the bank transfers account: opening 10,000.00 from February, then the month's movements.
    const tb = (await env.call('GET', `/v1/businesses/${b.id}/ledger/trial-balance?at=2026-03-31`, { key: a.test })).body;
    const b110 = new Map(bk.filter((x) => x.startsWith('B110')).map((x) => [col(x, 23, 37).trimEnd(), x]));
    const signed = (s: string) => Number(s.slice(0, 1) + s.slice(1));
    for (const acc of tb.accounts) {
      const rec = b110.get(acc.code)!;
      expect(rec, acc.code).toBeTruthy();
      const [open, debit, credit] = [col(rec, 278, 292), col(rec, 293, 307), col(rec, 308, 322)].map(signed);
      expect(open + debit - credit, acc.code).toBe(acc.balance);
    }
    expect(signed(col(b110.get('1230')!, 278, 292))).toBe(1_000_000);
    // Every B100 line's entry balances, and the file is what the books say (the independent verifier agrees).
    const iv = await verifyExportThroughApi(env, a.test, b.id, { fileId: r.body.file.id, from: '2026-03-01', to: '2026-03-31' });
    expect(iv.defects.map(formatDefect)).toEqual([]);
  });
});

describe('a run that fails', () => {
  async function failRun(bid: string, failure: Error) {
    const business = await getOwnedBusiness(env.s.databases.sandbox.db, a.id, bid);
    const attempt = runOpenfrmtExport(env.s, env.s.databases.sandbox, {
      business,
      range: { from: '2026-01-01', to: '2026-12-31' },
      actor: { accountId: a.id, keyId: a.testKeyId },
      opts: {
        chunkSize: 1,
        afterChunk: async (n) => {
          if (n === 2) throw failure;
        },
      },
    });
    await expect(attempt).rejects.toBe(failure);
    const runs = await env.sql('sandbox', `SELECT id, status, error, file_id FROM export_runs WHERE business_id = '${bid}' ORDER BY created_at DESC LIMIT 1`);
    const audit = await env.sql(
      'sandbox',
      `SELECT action, entity_id, after FROM audit_log WHERE business_id = '${bid}' AND action = 'export.openfrmt' ORDER BY seq DESC LIMIT 1`,
    );
    return { run: runs[0] as any, audit: audit[0] as any };
  }

  it('is recorded as failed with a reason and audited, never left running or silent', async () => {
    const b = await env.business(a.test);
    for (let i = 0; i < 3; i++) await issueDoc(env, a.test, b.id, { docType: 400, payments: [{ method: 'cash', amount: 100 + i }] });
    env.clock.advance(1_000);
    const disk = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const { run, audit } = await failRun(b.id, disk);
    expect(run.status).toBe('failed');
    expect(run.file_id).toBeNull();
    expect(run.error).toBe('the export could not be produced: its temporary file could not be written or read (ENOSPC)');
    expect(audit.entity_id).toBe(run.id);
    expect(audit.after).toMatchObject({ status: 'failed', fileId: null, error: run.error, from: '2026-01-01', to: '2026-12-31' });
    // The run as the API answers it says why.
    const read = await env.call('GET', `/v1/businesses/${b.id}/exports/${run.id}`, { key: a.test });
    expect(read.status).toBe(200);
    expect(read.body.exportRun).toMatchObject({ status: 'failed', error: run.error, fileId: null });
    expect(read.body.file).toBeNull();
  });

  it('names a database failure by its SQLSTATE and hides anything else behind a generic reason', async () => {
    const b = await env.business(a.test);
    for (let i = 0; i < 3; i++) await issueDoc(env, a.test, b.id, { docType: 400, payments: [{ method: 'cash', amount: 100 + i }] });
    env.clock.advance(1_000);
    const db = await failRun(b.id, Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }));
    expect(db.run.error).toBe('the export could not be produced: the database failed while it was read (SQLSTATE 57014)');
    env.clock.advance(60_000);
    const other = await failRun(b.id, new Error('secret internals at /srv/pinkas/src/x.ts:12'));
    expect(other.run.error).not.toContain('secret');
    expect(other.run.error).toMatch(/^the export could not be produced: an internal error/);
    expect(other.audit.after.error).toBe(other.run.error);
  });
});

describe('verification', () => {
  it('fails the run when the database disagrees with what the files say', async () => {
    const b = await env.business(a.test);
    await issueDoc(env, a.test, b.id, { docType: 400, payments: [{ method: 'cash', amount: 100 }] });
    // A row whose stored total disagrees with its frozen snapshot (inserted raw: issued rows cannot be edited).
    await env.sql(
      'sandbox',
      `INSERT INTO documents(id, business_id, status, doc_type, doc_number, party, price_mode, lines, payments, document_date, value_date,
                             vat_rate_bp, discount_amount, withholding_amount, total_ex_vat, vat_amount, total_inc_vat, warnings, snapshot,
                             issued_at, created_at, updated_at)
       SELECT 'doc_tampered0001', business_id, status, doc_type, doc_number + 1, party, price_mode, lines, payments, document_date, value_date,
              vat_rate_bp, discount_amount, withholding_amount, total_ex_vat, vat_amount, total_inc_vat + 1, warnings,
              jsonb_set(snapshot, '{docNumber}', to_jsonb(doc_number + 1)), issued_at, created_at, updated_at
       FROM documents WHERE business_id = '${b.id}'`,
    );
    env.clock.advance(1_000);
    const r = await exportRun(b.id, { from: '2026-03-01', to: '2026-03-31' });
    expect(r.status).toBe(201);
    expect(r.body.exportRun.status).toBe('failed');
    const v = r.body.exportRun.verification;
    expect(v.ok).toBe(false);
    expect(v.documentsMatchSource).toBe(true);
    expect(v.byDocType).toEqual([
      expect.objectContaining({
        docType: 400,
        match: false,
        file: expect.objectContaining({ incVat: 200 }),
        database: expect.objectContaining({ incVat: 201 }),
      }),
    ]);
    expect(r.body.exportRun.report.message).toBe('ביצוע ממשק פתוח נכשל באימות הקבצים.');
    const events = await env.sql('sandbox', `SELECT 1 FROM outbox_events WHERE event = 'export.completed' AND business_id = '${b.id}'`);
    expect(events).toHaveLength(0);
  });

  it('a run left "running" by a stopped process is marked failed by the next run an hour later', async () => {
    const b = await env.business(a.test);
    await env.sql(
      'sandbox',
      `INSERT INTO export_runs(id, business_id, from_date, to_date, status, cut_off_at, production_at, directory, primary_id, created_at)
       VALUES ('exr_0000000000stale1', '${b.id}', '2026-01-01', '2026-01-31', 'running', '2026-03-01T06:00:00Z', '2026-03-01T06:00:00Z',
               'OPENFRMT/51617915.26/03010800', '123456789012345', '2026-03-01T06:00:00Z')`,
    );
    const r = await exportRun(b.id, { from: '2026-01-01', to: '2026-01-31' });
    expect(r.body.exportRun.status).toBe('completed');
    const list = await env.call('GET', `/v1/businesses/${b.id}/exports`, { key: a.test });
    expect(list.body.exportRuns.map((x: any) => [x.status, x.error])).toEqual([
      ['completed', null],
      ['failed', 'interrupted before it finished'],
    ]);
    const audit = await env.sql('sandbox', `SELECT key_id, after FROM audit_log WHERE entity_id = 'exr_0000000000stale1'`);
    expect(audit).toEqual([
      { key_id: null, after: { from: '2026-01-01', to: '2026-01-31', status: 'failed', fileId: null, error: 'interrupted before it finished' } },
    ]);
  });

  it('gross prices and a 0% export invoice read back verified, lines ex VAT', async () => {
    const b = await env.business(a.test);
    await issueDoc(env, a.test, b.id, {
      docType: 305,
      priceMode: 'gross',
      party: { name: 'A' },
      lines: [{ description: 'x', quantity: 3, unitPriceExVat: 11_800 }],
    });
    await issueDoc(env, a.test, b.id, {
      docType: 305,
      party: { name: 'B' },
      vatRateBp: 0,
      vatExemptionReason: 'export',
      lines: [{ description: 'y', quantity: 1, unitPriceExVat: 5_000 }],
    });
    env.clock.advance(1_000);
    const r = await exportRun(b.id, { from: '2026-03-01', to: '2026-03-31' });
    expect(r.body.exportRun.verification.ok).toBe(true);
    const files = await download(r.body.file.id);
    const lines = records(files[`${r.body.exportRun.directory}/BKMVDATA.TXT`]).filter((x) => x.startsWith('D110'));
    expect(lines.map((x) => [col(x, 241, 255), col(x, 271, 285), col(x, 286, 289)])).toEqual([
      ['+00000000010000', '+00000000030000', '1800'],
      ['+00000000005000', '+00000000005000', '0000'],
    ]);
  });
});

describe('access and validation', () => {
  it('needs the export scope; stays open on a deactivated business', async () => {
    const b = await env.business(a.test);
    const docsOnly = (await a.mint({ mode: 'test', scopes: ['documents'] })).secret;
    const denied = await exportRun(b.id, { from: '2026-01-01', to: '2026-01-31' }, docsOnly);
    expect(denied.status).toBe(403);
    expect(denied.body.reason).toBe('forbidden');
    expect((await env.call('POST', `/v1/businesses/${b.id}/deactivate`, { key: a.test })).status).toBe(200);
    const r = await exportRun(b.id, { from: '2026-01-01', to: '2026-01-31' });
    expect(r.status).toBe(201);
  });

  it('validates the range and refuses unknown fields, naming them', async () => {
    const b = await env.business(a.test);
    const back = await exportRun(b.id, { from: '2026-02-01', to: '2026-01-31' });
    expect(back.status, JSON.stringify(back.body)).toBe(400);
    expect(back.body).toMatchObject({ reason: 'validation' });
    expect(back.body.error).toMatch(/body\.to/);
    const extra = await exportRun(b.id, { from: '2026-01-01', to: '2026-01-31', colour: 'x' });
    expect(extra.status, JSON.stringify(extra.body)).toBe(400);
    expect(extra.body.error).toMatch(/body\.colour/);
    const missing = await exportRun(b.id, { from: '2026-01-01' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/to/);
  });

  it("another account's business is not found", async () => {
    const other = await env.account();
    const b = await env.business(other.test);
    const r = await exportRun(b.id, { from: '2026-01-01', to: '2026-01-31' });
    expect(r.status).toBe(404);
    expect((await env.call('GET', `/v1/businesses/${b.id}/exports`, { key: a.test })).status).toBe(404);
  });
});
