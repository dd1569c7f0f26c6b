/**
 * The bulk seeder of large books (bench/seed/documents.ts) writes what the API writes: the same
 * bodies issued over HTTP and seeded give the same rows (ids, parties' ids and times aside), and
 * seeded books pass the continuity report, `audit verify` and an OPENFRMT export's verification.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { seedDocuments } from '../../bench/seed/documents.ts';
import { verifyBooks } from '../../src/documents/audit-check.ts';
import { continuityReport, listDocuments } from '../../src/documents/list.ts';
import { runOpenfrmtExport } from '../../src/exports/run.ts';
import { readBusiness } from '../../bench/seed/documents.ts';
import type { DraftCreateBody } from '../../src/documents/schemas.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

const sandbox = () => env.db.sandbox;

describe('seeded books', () => {
  let bid: string;
  const COUNT = 2_345;
  beforeAll(async () => {
    bid = (await env.business(a.test)).id;
    const r = await seedDocuments(sandbox(), { businessId: bid, count: COUNT, perDay: 300, lastDay: '2026-02-27', batch: 1_000, parties: 25 });
    expect(r.documents).toBe(COUNT);
    expect(r.auditRows).toBe(2 * COUNT);
    expect(r.firstDay).toBe('2026-02-20');
  }, 120_000);

  it('numbers every series gaplessly, counters included', async () => {
    const report = await continuityReport(sandbox().db, bid);
    expect(report.ok).toBe(true);
    const total = report.byDocType.reduce((n, e) => n + e.count, 0);
    expect(total).toBe(COUNT);
    for (const e of report.byDocType.filter((x) => x.count > 0)) expect(e).toMatchObject({ first: 1, last: e.count, counter: e.count, gapCount: 0 });
    // The next issue over the API continues each series.
    const d = await env.call('POST', `/v1/businesses/${bid}/documents`, {
      key: a.test,
      body: { docType: 305, lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100 }] },
    });
    const i = await env.call('POST', `/v1/businesses/${bid}/documents/${d.body.document.id}/issue`, { key: a.test });
    expect(i.status, JSON.stringify(i.body)).toBe(201);
    expect(i.body.document.docNumber).toBe(report.byDocType.find((e) => e.docType === 305)!.count + 1);
    expect((await continuityReport(sandbox().db, bid)).ok).toBe(true);
  });

  it('passes audit verify: chains, triggers and every issued document against its issue row', async () => {
    const all = await verifyBooks(sandbox().db);
    expect(all.problems).toEqual([]);
    expect(all.ok).toBe(true);
    expect(all.documents).toBeGreaterThanOrEqual(COUNT);
    const one = await verifyBooks(sandbox().db, `biz:${bid}`);
    expect(one.ok).toBe(true);
    expect(one.rows).toBeGreaterThanOrEqual(2 * COUNT + 25);
  });

  it('lists through every filter', async () => {
    const list = (q: Record<string, unknown>) => listDocuments(sandbox().db, bid, { take: 50, ...q });
    const first = await list({});
    expect(first.documents).toHaveLength(50);
    expect((await list({ docType: 400 })).documents.every((d) => d.docType === 400)).toBe(true);
    expect((await list({ q: 'מטבח' })).documents.every((d) => d.lines.some((l) => l.description.includes('מטבח')) || d.party?.name.includes('מטבח'))).toBe(
      true,
    );
    expect((await list({ externalRefPrefix: 'pos-' })).documents.every((d) => d.externalRef?.startsWith('pos-'))).toBe(true);
    expect((await list({ counts: '1' })).counts!.total).toBe(COUNT + 1);
  });

  it('q finds exactly what the ILIKE conditions alone find, from the newest rows or through the trigram index', async () => {
    // A draft with mixed case, LIKE's wildcards and a newline in its texts, newest of the books.
    const d = await env.call('POST', `/v1/businesses/${bid}/documents`, {
      key: a.test,
      body: { docType: 320, party: { name: 'WeB HoStInG 100% a_b' }, lines: [{ description: 'גג\nאיטום', quantity: 1, unitPriceExVat: 100 }] },
    });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    const texts = [
      'מטבח',
      'כהן',
      'CONSULTING',
      'web hosting',
      'ltd',
      'b',
      'שיפוץ מטבח',
      ' - חודשי',
      '12',
      '7',
      '1234',
      'זזזקקק',
      '100%',
      'a_b',
      'ג\nא',
      'ג',
      'b"c',
      'טיפול \\',
    ];
    const shapes: Record<string, unknown>[] = [
      { take: 1000 },
      { take: 7 },
      { take: 7, skip: 30 },
      { take: 20, docType: 305 },
      { take: 20, status: 'draft' },
      { take: 20, from: '2026-02-25', to: '2026-02-26' },
    ];
    // The default window holds every row of these books; windows of 1, 10 and 100 rows send the
    // rarer texts to the trigram index (phase 2).
    for (const probeRows of [undefined, 1, 10, 100]) {
      for (const text of texts) {
        for (const shape of shapes) {
          const q = { q: text, ...shape } as Record<string, any>;
          const got = (await listDocuments(sandbox().db, bid, q as never, { probeRows })).documents.map((x) => x.id);
          const t = text.trim();
          const pattern = `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
          const numeric = /^\d{1,15}$/.test(t) ? `OR doc_number = ${Number(t)}` : '';
          const want = await env.db.sandbox.pool.query(
            `SELECT id FROM documents WHERE business_id = $1 AND (coalesce(party->>'name', '') ILIKE $2
               OR EXISTS (SELECT 1 FROM jsonb_array_elements(lines) AS l WHERE l->>'description' ILIKE $2) ${numeric})
               AND ($3::int IS NULL OR doc_type = $3) AND ($4::text IS NULL OR status = $4)
               AND ($5::date IS NULL OR document_date >= $5) AND ($6::date IS NULL OR document_date <= $6)
             ORDER BY created_at DESC, id DESC LIMIT $7 OFFSET $8`,
            [bid, pattern, q.docType ?? null, q.status ?? null, q.from ?? null, q.to ?? null, q.take, q.skip ?? 0],
          );
          expect(got, JSON.stringify({ probeRows, ...q })).toEqual(want.rows.map((r) => r.id));
        }
      }
    }
  }, 120_000);

  it('exports to OPENFRMT and the export verifies', async () => {
    const business = await readBusiness(sandbox(), bid);
    const r = await runOpenfrmtExport(env.s, sandbox(), {
      business,
      range: { from: '2026-02-01', to: '2026-02-28' },
      actor: { accountId: a.id, keyId: null },
      opts: { chunkSize: 400 },
    });
    expect(r.exportRun.status).toBe('completed');
    expect(r.exportRun.verification!.ok).toBe(true);
    expect(r.exportRun.recordCounts!.C100).toBe(COUNT);
  }, 60_000);
});

describe('seeding without replica mode (a role that is not a superuser)', () => {
  it('fires every trigger and still writes balanced, gaplessly numbered books', async () => {
    const bid = (await env.business(a.test)).id;
    const r = await seedDocuments(sandbox(), { businessId: bid, count: 120, perDay: 60, lastDay: '2026-02-20', batch: 50, parties: 5, replica: false });
    expect(r.documents).toBe(120);
    const [{ n, max }] = await env.sql<Record<string, any>>(
      'sandbox',
      `SELECT count(*)::int AS n, max(entry_no)::int AS max FROM journal_entries WHERE business_id = '${bid}'`,
    );
    expect({ n, max }).toEqual({ n: 120, max: 120 });
    const [{ last_entry_no }] = await env.sql<Record<string, any>>('sandbox', `SELECT last_entry_no::int FROM ledger_counters WHERE business_id = '${bid}'`);
    expect(last_entry_no).toBe(120);
    const tb = await env.call('GET', `/v1/businesses/${bid}/ledger/trial-balance?at=2026-02-28`, { key: a.test });
    expect(tb.body.totals.debit).toBe(tb.body.totals.credit);
    expect(tb.body.totals.debit).toBeGreaterThan(0);
    expect((await verifyBooks(sandbox().db, `biz:${bid}`)).ok).toBe(true);
  }, 60_000);
});

describe('seeded rows equal issued rows', () => {
  // Bodies covering each shape the seed makes: saved and inline parties, anonymous receipts,
  // several lines with sku and fractional quantities, payments by alias and by code, no externalRef.
  const bodies = (partyId: string) =>
    [
      {
        docType: 305,
        documentDate: '2026-02-10',
        party: { partyId },
        lines: [
          { description: 'שיפוץ מטבח', quantity: 1.5, unitPriceExVat: 12_345, sku: 'SKU-7' },
          { description: 'Consulting premium', quantity: 2, unitPriceExVat: 999 },
        ],
        externalRef: 'shop-00000001',
      },
      {
        docType: 320,
        documentDate: '2026-02-10',
        party: { name: 'דנה לוי', phone: '0521234567', address: 'חיפה 12' },
        lines: [{ description: 'ייעוץ עסקי - חודשי', quantity: 1, unitPriceExVat: 40_000 }],
        payments: [{ method: 'bit', amount: 47_200 }],
        externalRef: 'pos-00000002',
      },
      {
        docType: 400,
        documentDate: '2026-02-11',
        payments: [
          { method: 'cash', amount: 5_000 },
          { method: 4, amount: 1_234 },
        ],
      },
      { docType: 400, documentDate: '2026-02-11', party: { partyId }, payments: [{ method: 'card', amount: 77_700 }], externalRef: 'erp-00000004' },
      { docType: 305, documentDate: '2026-02-12', party: { name: 'Katz Ltd' }, lines: [{ description: 'Web hosting', quantity: 2.25, unitPriceExVat: 3_333 }] },
    ] as unknown as DraftCreateBody[];
  const partyBody = { name: 'משה כהן 1', kind: 'customer', address: 'תל אביב 5' };

  async function rowsOf(bid: string) {
    const docs = await env.sql<Record<string, any>>('sandbox', `SELECT * FROM documents WHERE business_id = '${bid}' ORDER BY doc_type, doc_number`);
    const audit = await env.sql<Record<string, any>>('sandbox', `SELECT * FROM audit_log WHERE chain = 'biz:${bid}' AND entity_type = 'document' ORDER BY seq`);
    const events = await env.sql<Record<string, any>>('sandbox', `SELECT * FROM outbox_events WHERE business_id = '${bid}' ORDER BY created_at, id`);
    const jobs = await env.sql<Record<string, any>>('sandbox', `SELECT kind, ref_id FROM jobs WHERE business_id = '${bid}' ORDER BY kind, ref_id`);
    const usage = await env.sql<Record<string, any>>(
      'sandbox',
      `SELECT metric, sum(count)::int AS n FROM usage_daily WHERE subject = 'biz:${bid}' GROUP BY metric`,
    );
    const entries = await env.sql<Record<string, any>>(
      'sandbox',
      `SELECT e.entry_no, e.entry_date::text AS day, e.source, e.document_id, e.reference, e.reference_doc_type, e.description, e.created_by_key_id,
              (SELECT json_agg(json_build_array(l.line_no, l.account_code, l.side, l.amount) ORDER BY l.line_no) FROM journal_lines l WHERE l.entry_id = e.id) AS lines
         FROM journal_entries e WHERE e.business_id = '${bid}' ORDER BY e.entry_no`,
    );
    const accounts = await env.sql<Record<string, any>>(
      'sandbox',
      `SELECT code, name, kind, trial_balance_code, party_id FROM ledger_accounts WHERE business_id = '${bid}' ORDER BY code`,
    );
    const counter = await env.sql<Record<string, any>>('sandbox', `SELECT last_entry_no FROM ledger_counters WHERE business_id = '${bid}'`);
    return { docs, audit, events, jobs, usage, ledger: { entries, accounts, counter } };
  }

  /** Replaces what differs by construction (ids, the business, the party's id, times) by placeholders. */
  function normalized(value: unknown, names: Map<string, string>): unknown {
    return JSON.parse(JSON.stringify(value), (_k, v) => {
      if (typeof v === 'string') {
        if (names.has(v)) return names.get(v);
        if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00)$/.test(v)) return '<time>';
        if (/^(doc|aud|evt|job|biz|pty)_[0-9a-z]{26}$/.test(v)) return `<${v.slice(0, 3)}>`;
      }
      return v;
    });
  }

  it('the API path and the seed write the same documents, audit rows, events, jobs, usage and ledger', async () => {
    const viaApi = (await env.business(a.test)).id;
    const seeded = (await env.business(a.test)).id;
    const ptyApi = (await env.call('POST', `/v1/businesses/${viaApi}/parties`, { key: a.test, body: partyBody })).body.party;
    const ptySeed = (await env.call('POST', `/v1/businesses/${seeded}/parties`, { key: a.test, body: partyBody })).body.party;
    expect(ptyApi.key).toBe(ptySeed.key);

    for (const body of bodies(ptyApi.id)) {
      const d = await env.call('POST', `/v1/businesses/${viaApi}/documents`, { key: a.test, body });
      expect(d.status, JSON.stringify(d.body)).toBe(201);
      const i = await env.call('POST', `/v1/businesses/${viaApi}/documents/${d.body.document.id}/issue`, { key: a.test });
      expect(i.status, JSON.stringify(i.body)).toBe(201);
    }
    await seedDocuments(sandbox(), { businessId: seeded, count: 0, bodies: bodies(ptySeed.id), pending: true });

    const api = await rowsOf(viaApi);
    const seed = await rowsOf(seeded);
    const names = (bid: string, pty: string, docs: Record<string, any>[]) =>
      new Map<string, string>([
        [bid, '<business>'],
        [pty, '<party>'],
        [`biz:${bid}`, '<chain>'],
        ...docs.map((d, i) => [String(d.id), `<doc ${i}>`] as [string, string]),
      ]);
    const nApi = names(viaApi, ptyApi.id, api.docs);
    const nSeed = names(seeded, ptySeed.id, seed.docs);
    // request_hash differs only through the party id named in the body: compare it for the others.
    const hashOf = (docs: Record<string, any>[]) => docs.map((d) => (d.party_id ? null : d.request_hash));
    expect(hashOf(seed.docs)).toEqual(hashOf(api.docs));
    const docView = (docs: Record<string, any>[], n: Map<string, string>) =>
      normalized(
        docs.map(({ request_hash: _h, ...d }) => d),
        n,
      );
    expect(docView(seed.docs, nSeed)).toEqual(docView(api.docs, nApi));
    const auditView = (rows: Record<string, any>[], n: Map<string, string>) =>
      normalized(
        rows.map(({ seq: _s, prev_hash: _p, hash: _h, ...r }) => r),
        n,
      );
    expect(auditView(seed.audit, nSeed)).toEqual(auditView(api.audit, nApi));
    // (The API's events share one clock instant: ordered by what they say.)
    const eventView = (rows: Record<string, any>[], n: Map<string, string>) =>
      (
        normalized(
          rows.map(({ dispatched_at: _d, ...r }) => r),
          n,
        ) as unknown[]
      )
        .map((e) => JSON.stringify(e))
        .sort();
    expect(eventView(seed.events, nSeed)).toEqual(eventView(api.events, nApi));
    const jobView = (rows: Record<string, any>[], n: Map<string, string>) => (normalized(rows, n) as unknown[]).map((e) => JSON.stringify(e)).sort();
    expect(jobView(seed.jobs, nSeed)).toEqual(jobView(api.jobs, nApi));
    expect(seed.usage).toEqual(api.usage);
    // The ledger: the same entries, numbered alike, with the same lines on the same accounts.
    expect(seed.ledger.entries.length).toBe(bodies('x').length);
    expect(normalized(seed.ledger, nSeed)).toEqual(normalized(api.ledger, nApi));
    expect(seed.docs.every((d) => d.status === 'issued')).toBe(true);
    expect((await verifyBooks(sandbox().db, `biz:${seeded}`)).ok).toBe(true);
  });
});
