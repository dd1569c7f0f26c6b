/**
 * Issue 15 item 4 end to end: negative receipts and credit notes with the signs of the spec, a key per
 * occasional customer, no invented M100, the maker's VAT number, the production time in Israel time
 * around daylight-saving changes (never a minute that has not begun).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import iconv from 'iconv-lite';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { getOwnedBusiness } from '../../src/businesses/records.ts';
import { runOpenfrmtExport } from '../../src/exports/run.ts';
import { AppError } from '../../src/platform/errors.ts';
import { creditNote, issueDoc } from './fixture.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

const col = (rec: string, from: number, to: number) => rec.slice(from - 1, to);
async function exportFiles(bid: string, from: string, to: string) {
  const r = await env.call('POST', `/v1/businesses/${bid}/exports/openfrmt`, { key: a.test, body: { from, to } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const f = await env.call('GET', `/v1/files/${r.body.file.id}`, { key: a.test });
  const files = Object.fromEntries(
    Object.entries(unzipSync(new Uint8Array(f.raw))).map(([n, c]) => [n, iconv.decode(Buffer.from(c), 'iso-8859-8').split('\r\n').slice(0, -1)]),
  );
  const d = r.body.exportRun.directory;
  return { run: r.body.exportRun, bk: files[`${d}/BKMVDATA.TXT`], ini: files[`${d}/INI.TXT`] };
}

describe('signs per document type', () => {
  it('a negative receipt (credit of a 400) is negative throughout, withholding included; verified', async () => {
    env.clock.set('2026-03-02T08:00:00.000Z');
    const b = await env.business(a.test);
    const anon = await issueDoc(env, a.test, b.id, { docType: 400, withholdingAmount: 2_500, payments: [{ method: 'cash', amount: 50_000 }] });
    const neg = await creditNote(env, a.test, b.id, anon.id);
    expect(neg).toMatchObject({ docType: 400, docNumber: 2 });
    env.clock.advance(60_000);
    const { run, bk } = await exportFiles(b.id, '2026-03-01', '2026-03-31');
    expect(run.verification).toMatchObject({ ok: true, issueCount: 0, documentsMatchSource: true });
    expect(run.verification.byDocType).toEqual([
      expect.objectContaining({ docType: 400, match: true, file: expect.objectContaining({ count: 2, incVat: 0, withholding: 0, paymentsTotal: 0 }) }),
    ]);
    const [orig, rev] = bk.filter((r) => r.startsWith('C100'));
    expect(col(orig, 288, 374)).toBe('+00000000050000+00000000000000+00000000050000+00000000000000+00000000050000+00000002500');
    expect(col(rev, 288, 374)).toBe('-00000000050000+00000000000000-00000000050000+00000000000000-00000000050000-00000002500');
    const d120 = bk.filter((r) => r.startsWith('D120')).map((r) => col(r, 104, 118));
    expect(d120).toEqual(['+00000000050000', '-00000000050000']);
    // Occasional customer: the receipt's own key, and its reversal the same customer.
    expect([col(orig, 375, 389).trimEnd(), col(rev, 375, 389).trimEnd()]).toEqual(['400-1', '400-1']);
  });

  it('a credit note of a 320 with withholding: positive, no withholding, no D120, lines name the 320', async () => {
    env.clock.set('2026-03-03T08:00:00.000Z');
    const b = await env.business(a.test);
    const inv = await issueDoc(env, a.test, b.id, {
      docType: 320,
      party: { name: 'Beta', taxId: TAX_IDS.person2 },
      withholdingAmount: 5_000,
      lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100_000 }],
      payments: [{ method: 'transfer', amount: 113_000 }],
    });
    await creditNote(env, a.test, b.id, inv.id);
    env.clock.advance(60_000);
    const { run, bk } = await exportFiles(b.id, '2026-03-01', '2026-03-31');
    expect(run.verification.ok).toBe(true);
    const credit = bk.find((r) => r.startsWith('C100') && col(r, 23, 25) === '330')!;
    expect(col(credit, 288, 374)).toBe('+00000000100000+00000000000000+00000000100000+00000000018000+00000000118000+00000000000');
    expect(bk.filter((r) => r.startsWith('D120') && col(r, 23, 25) === '330')).toEqual([]);
    expect(bk.filter((r) => r.startsWith('D110') && col(r, 23, 25) === '330').map((r) => col(r, 50, 72).trimEnd())).toEqual(['3201']);
    expect(col(credit, 375, 389).trimEnd()).toBe(TAX_IDS.person2);
  });

  it('anonymous receipts and inline customers without a tax id do not share a key; SKUs make no M100', async () => {
    env.clock.set('2026-03-04T08:00:00.000Z');
    const b = await env.business(a.test);
    await issueDoc(env, a.test, b.id, { docType: 400, payments: [{ method: 'cash', amount: 100 }] });
    await issueDoc(env, a.test, b.id, { docType: 400, payments: [{ method: 'cash', amount: 200 }] });
    await issueDoc(env, a.test, b.id, {
      docType: 305,
      party: { name: 'דני' },
      lines: [{ description: 'x', quantity: 2, unitPriceExVat: 1_000, sku: 'SKU-9' }],
    });
    env.clock.advance(60_000);
    const { run, bk, ini } = await exportFiles(b.id, '2026-03-01', '2026-03-31');
    expect(run.verification.ok).toBe(true);
    const keys = bk.filter((r) => r.startsWith('C100')).map((r) => col(r, 375, 389).trimEnd());
    expect(keys).toEqual(['305-1', '400-1', '400-2']);
    expect(bk.some((r) => r.startsWith('M100'))).toBe(false);
    expect(ini.some((r) => r.startsWith('M100'))).toBe(false);
    // A company keeps double-entry books: the two receipts are 2 journal lines each (Dr 1200 / Cr 1190), the
    // invoice 3 (Dr 1190 / Cr 4000 / Cr 2200): 7 B100 over 4 accounts (B110).
    expect(run.recordCounts).toEqual({ A100: 1, B100: 7, B110: 4, C100: 3, D110: 1, D120: 2, Z900: 1, total: 19 });
  });
});

describe('A000/1009 configuration', () => {
  it('an export without OPENFRMT_MAKER_TAX_ID is refused 503 unconfigured naming it; no run is recorded', async () => {
    const b = await env.business(a.test);
    const business = await getOwnedBusiness(env.s.databases.sandbox.db, a.id, b.id);
    const s = { ...env.s, config: { ...env.s.config, exports: { ...env.s.config.exports, makerTaxId: '' } } };
    const err = await runOpenfrmtExport(s, env.s.databases.sandbox, {
      business,
      range: { from: '2026-01-01', to: '2026-01-31' },
      actor: { accountId: a.id, keyId: a.testKeyId },
    }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 503, reason: 'unconfigured' });
    expect(err.message).toMatch(/OPENFRMT_MAKER_TAX_ID/);
    expect(await env.sql('sandbox', `SELECT id FROM export_runs WHERE business_id = '${b.id}'`)).toEqual([]);
  });
});

describe('A000/1006: the software registration number is configuration (issue 29)', () => {
  it('unset: zeros (not registered), in the file and in the printed report', async () => {
    env.clock.set('2026-03-06T08:00:00.000Z');
    const b = await env.business(a.test);
    await issueDoc(env, a.test, b.id, { docType: 400, payments: [{ method: 'cash', amount: 1_000 }] });
    const { run, ini } = await exportFiles(b.id, '2026-03-01', '2026-03-31');
    expect(col(ini[0], 57, 64)).toBe('00000000');
    expect(run.report.software.registrationNumber).toBe('00000000');
  });

  it('OPENFRMT_SOFTWARE_REG_NO set: written in A000/1006 and the printed report, and the file verifies', async () => {
    const registered = await createTestEnv({ env: { OPENFRMT_SOFTWARE_REG_NO: '12345678' } });
    try {
      registered.clock.set('2026-03-06T08:00:00.000Z');
      const acct = await registered.account();
      const b = await registered.business(acct.test);
      await issueDoc(registered, acct.test, b.id, { docType: 400, payments: [{ method: 'cash', amount: 1_000 }] });
      const r = await registered.call('POST', `/v1/businesses/${b.id}/exports/openfrmt`, { key: acct.test, body: { from: '2026-03-01', to: '2026-03-31' } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.exportRun.verification).toMatchObject({ ok: true, issueCount: 0 });
      expect(r.body.exportRun.report.software.registrationNumber).toBe('12345678');
      const f = await registered.call('GET', `/v1/files/${r.body.file.id}`, { key: acct.test });
      const zip = unzipSync(new Uint8Array(f.raw));
      const ini = iconv.decode(Buffer.from(zip[`${r.body.exportRun.directory}/INI.TXT`]), 'iso-8859-8');
      expect(col(ini, 57, 64)).toBe('12345678');
    } finally {
      await registered.close();
    }
  });
});

describe('production date and time: Israel wall clock of the run, never in the future', () => {
  it('autumn change (2026-10-25, 02:00 IDT → 01:00 IST): the repeated 01:30 is refused until a free minute, never claimed ahead', async () => {
    const b = await env.business(a.test);
    env.clock.set('2026-10-24T22:30:10.000Z'); // 01:30 IDT
    const first = await exportFiles(b.id, '2026-10-01', '2026-10-31');
    expect(first.run.directory).toBe('OPENFRMT/51617915.26/10250130');
    expect(col(first.ini[0], 383, 394)).toBe('20261025' + '0130');
    expect(first.run.report.producedAt).toEqual({ date: '25/10/26', time: '01:30' });
    env.clock.set('2026-10-24T23:30:10.000Z'); // 01:30 IST, one real hour later: same wall-clock name
    const again = await env.call('POST', `/v1/businesses/${b.id}/exports/openfrmt`, { key: a.test, body: { from: '2026-10-01', to: '2026-10-31' } });
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe('conflict');
    expect(again.headers['retry-after']).toBe('50');
    env.clock.set('2026-10-24T23:31:00.000Z'); // 01:31 IST
    const later = await exportFiles(b.id, '2026-10-01', '2026-10-31');
    expect(later.run.directory).toBe('OPENFRMT/51617915.26/10250131');
    expect(col(later.ini[0], 383, 394)).toBe('20261025' + '0131');
  });

  it('spring change (2026-03-27, 02:00 IST → 03:00 IDT) and midnight: the Israel date and time of the start minute', async () => {
    const b = await env.business(a.test);
    env.clock.set('2026-03-26T23:59:59.000Z'); // 01:59:59 IST
    const before = await exportFiles(b.id, '2026-03-01', '2026-03-31');
    expect(col(before.ini[0], 383, 394)).toBe('20260327' + '0159');
    env.clock.set('2026-03-27T00:00:30.000Z'); // 03:00:30 IDT (02:xx does not exist)
    const after = await exportFiles(b.id, '2026-03-01', '2026-03-31');
    expect(after.run.directory).toBe('OPENFRMT/51617915.26/03270300');
    expect(col(after.ini[0], 383, 394)).toBe('20260327' + '0300');
    env.clock.set('2026-12-31T22:00:05.000Z'); // 00:00 on Jan 1 in Israel (UTC+2): the year of the directory is 27
    const ny = await exportFiles(b.id, '2026-12-01', '2026-12-31');
    expect(ny.run.directory).toBe('OPENFRMT/51617915.27/01010000');
    expect(col(ny.ini[0], 383, 394)).toBe('20270101' + '0000');
  });
});
