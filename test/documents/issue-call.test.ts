/**
 * Issue in one call (migration 0026 issue_document): what the API answers is what the database
 * stored, the audit chain and the books verify, and a draft or business changed between the read and
 * the call, or a refused limit, writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { verifyBooks } from '../../src/documents/audit-check.ts';
import { DOC_TYPES, type DocType } from '../../src/documents/doc-types.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;

const line = (over: Record<string, unknown> = {}) => ({ description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000, ...over });
const draft = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  env.call('POST', `/v1/businesses/${bid}/documents`, { key: a.test, body, headers });
const issue = (id: string, body?: Record<string, unknown>) => env.call('POST', `/v1/businesses/${bid}/documents/${id}/issue`, { key: a.test, body });
const get = async (id: string) => (await env.call('GET', `/v1/businesses/${bid}/documents/${id}`, { key: a.test })).body.document;

/** Every row the issue writes, counted: nothing may move when a call is refused. */
async function written() {
  const [r] = await env.sql<Record<string, number>>(
    'sandbox',
    `SELECT (SELECT count(*) FROM audit_log)::int AS audit, (SELECT count(*) FROM outbox_events)::int AS events,
            (SELECT count(*) FROM jobs)::int AS jobs, (SELECT count(*) FROM journal_entries)::int AS entries,
            (SELECT coalesce(sum(last_number), 0) FROM document_counters WHERE business_id = '${bid}')::int AS numbers,
            (SELECT coalesce(sum(count), 0) FROM usage_daily WHERE subject = 'biz:${bid}')::int AS usage`,
  );
  return r;
}

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  bid = (await env.business(a.test)).id;
});
afterAll(async () => env?.close());

describe('issue in one call', () => {
  it('answers exactly what it stored, for every kind of document, and the books verify', async () => {
    const party = (await env.call('POST', `/v1/businesses/${bid}/parties`, { key: a.test, body: { name: 'קונה בע"מ', taxId: TAX_IDS.company2 } })).body.party;
    const bodies: [Record<string, unknown>, Record<string, unknown> | undefined][] = [
      // A saved party and an amount that needs an allocation number (pending, with a warning and its job).
      [{ docType: 305, party: { partyId: party.id }, lines: [line({ unitPriceExVat: 3_000_000 })], note: 'הערה', metadata: { order: '7' } }, undefined],
      // A foreign currency at the request's rate, in English, with a payment.
      [
        {
          docType: 320,
          currency: 'USD',
          exchangeRate: '3.6512',
          language: 'en',
          party: { name: 'Acme' },
          lines: [line({ quantity: 2.5 })],
          payments: [{ method: 'card', amount: 29_500 }],
        },
        { branding: { template: 'stripe', accentColor: '#aa0011' } },
      ],
      // A receipt, a gross price and a discount.
      [{ docType: 400, payments: [{ method: 'cash', amount: 5_000 }] }, undefined],
      [{ docType: 305, priceMode: 'gross', discountAmount: 500, lines: [line(), line({ description: 'x', quantity: 3 })] }, undefined],
    ];
    for (const [body, issueBody] of bodies) {
      const created = await draft(body, { 'Idempotency-Key': `one-call-${body.docType}-${String(body.priceMode ?? body.currency ?? '')}` });
      expect(created.status).toBe(201);
      expect(created.body.document).toEqual(await get(created.body.document.id));
      const issued = await issue(created.body.document.id, issueBody);
      expect(issued.status).toBe(201);
      expect(issued.body.deduped).toBe(false);
      expect(issued.body.document).toEqual(await get(created.body.document.id));
    }
    const check = await verifyBooks(env.db.sandbox.db);
    expect(check.problems).toEqual([]);
    expect(check.documents).toBe(bodies.length);
    // The journal entry's reference and description carry the number the database took.
    const entries = await env.sql<{ reference: string; description: string; doc_number: number }>(
      'sandbox',
      `SELECT j.reference, j.description, d.doc_number FROM journal_entries j JOIN documents d ON d.id = j.document_id WHERE d.business_id = '${bid}'`,
    );
    expect(entries.length).toBe(bodies.length);
    for (const e of entries) {
      expect(e.reference).toBe(String(e.doc_number));
      expect(e.description).toContain(` ${e.doc_number}`);
    }
  });

  it('a draft replayed by its key is answered from the first create, in one more read', async () => {
    const body = { docType: 305, lines: [line()] };
    const first = await draft(body, { 'Idempotency-Key': 'replayed' });
    const again = await draft(body, { 'Idempotency-Key': 'replayed' });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ deduped: true, document: first.body.document });
    expect((await draft({ ...body, note: 'other' }, { 'Idempotency-Key': 'replayed' })).status).toBe(409);
  });

  it('a draft or a business changed since the read writes nothing', async () => {
    const d = (await draft({ docType: 305, lines: [line()] })).body.document;
    const call = (over: Record<string, unknown>) =>
      env.sql<{ outcome: string }>(
        'sandbox',
        `SELECT outcome FROM issue_document('${JSON.stringify({
          id: d.id,
          businessId: bid,
          draftVersion: 'stale',
          businessVersion: 'stale',
          ...over,
        })}'::jsonb)`,
      );
    const before = await written();
    expect((await call({}))[0].outcome).toBe('draft_changed');
    const [{ version }] = await env.sql<{ version: string }>('sandbox', `SELECT xmin::text AS version FROM documents WHERE id = '${d.id}'`);
    expect((await call({ draftVersion: version }))[0].outcome).toBe('business_changed');
    expect((await call({ id: 'doc_nope' }))[0].outcome).toBe('not_found');
    expect(await written()).toEqual(before);
    expect((await get(d.id)).status).toBe('draft');
    // Through the API the same draft issues: the business is read again when its version is stale.
    expect((await issue(d.id)).body.document.docNumber).toBeGreaterThan(0);
  });

  it("the database's series (series_doc_types, the counters' check) agree with doc-types.ts", async () => {
    const types = Object.keys(DOC_TYPES).map(Number) as DocType[];
    for (const series of new Set(types.map((t) => DOC_TYPES[t].series))) {
      const [row] = await env.sql<{ types: number[] }>('sandbox', `SELECT series_doc_types(${series}) AS types`);
      expect(row.types.sort()).toEqual(types.filter((t) => DOC_TYPES[t].series === series).sort());
    }
  });

  it('a refused daily allowance rolls the whole call back', async () => {
    const d = (await draft({ docType: 305, lines: [line()] })).body.document;
    await env.sql('sandbox', `UPDATE usage_daily SET count = 300 WHERE subject = 'biz:${bid}' AND metric = 'documents_opened'`);
    const before = await written();
    const r = await issue(d.id);
    expect(r.status).toBe(429);
    expect(r.body.reason).toBe('limit_reached');
    expect(await written()).toEqual(before);
    expect((await get(d.id)).status).toBe('draft');
  });
});
