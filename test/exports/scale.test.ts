import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { getOwnedBusiness } from '../../src/businesses/records.ts';
import { runOpenfrmtExport } from '../../src/exports/run.ts';
import { seedIssuedInvoices } from './seed.ts';
import { issueDoc } from './fixture.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

describe('a period with 20k documents', () => {
  it('streams in chunks with the API free between them, and verifies every document', async () => {
    // Single-entry: the seeded invoices have no journal entries, which double-entry verification requires.
    const b = await env.business(a.test, { bookkeeping: 'single' });
    const db = env.s.databases.sandbox.db;
    await seedIssuedInvoices(db, { businessId: b.id, count: 20_000, firstNumber: 1, date: '2026-02-15', issuedAt: '2026-02-15T10:00:00.000Z', skus: 50 });
    const business = await getOwnedBusiness(db, a.id, b.id);
    let chunks = 0;
    let issuedDuring: any;
    const started = Date.now();
    const result = await runOpenfrmtExport(env.s, env.s.databases.sandbox, {
      business,
      range: { from: '2026-02-01', to: '2026-02-28' },
      actor: { accountId: a.id, keyId: a.testKeyId },
      opts: {
        afterChunk: async (n) => {
          chunks = n;
          // A write through the API between chunks: it would hang if the export held a transaction open.
          if (n !== 10) return;
          env.clock.advance(1_000);
          issuedDuring = await issueDoc(env, a.test, b.id, { docType: 400, documentDate: '2026-02-20', payments: [{ method: 'cash', amount: 100 }] });
        },
      },
    });
    const seconds = (Date.now() - started) / 1000;
    expect(issuedDuring.status).toBe('issued');
    expect(chunks).toBe(41); // 20,000 / 500 = 40 full chunks, then the short last read
    const run = result.exportRun;
    expect(run.status, JSON.stringify(run.verification)).toBe('completed');
    // No M100: the seeded lines' SKUs are not inventory (none is made up from them).
    expect(run.recordCounts).toEqual({ A100: 1, C100: 20_000, D110: 20_000, Z900: 1, total: 40_002 });
    const v = run.verification!;
    expect(v.ok).toBe(true);
    expect(v.documentsRead).toBe(20_000);
    expect(v.documentsMatchSource).toBe(true);
    const t305 = v.byDocType.find((t) => t.docType === 305)!;
    // Σ net over n = 1..20000 of 10000 + n % 5000, VAT per document rounded.
    let net = 0;
    let vat = 0;
    for (let n = 1; n <= 20_000; n++) {
      const x = 10_000 + (n % 5000);
      net += x;
      vat += Math.round(x * 0.18);
    }
    expect(t305.file).toMatchObject({ count: 20_000, exVat: net, vat, incVat: net + vat, lines: 20_000 });
    expect(t305.match).toBe(true);
    expect(result.file.size).toBeGreaterThan(0);
    console.log(`20k documents exported in ${seconds.toFixed(1)} s, zip ${(result.file.size / 1e6).toFixed(2)} MB`);
  }, 300_000);
});
