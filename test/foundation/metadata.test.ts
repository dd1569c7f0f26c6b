/**
 * Issue 18 item 7: `metadata` on businesses, parties, documents and expenses: stored, returned,
 * bounded, filtered by exact key/value in the lists, and frozen with an issued document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import { sql } from 'drizzle-orm';
import { query } from '../../src/platform/db/sql.ts';
import { metadataCondition } from '../../src/platform/metadata.ts';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { pdfText } from '../pdf/extract-text.ts';
import { renderRunner, tempDataDir } from '../prints/helpers.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;
beforeAll(async () => {
  env = await createTestEnv({ env: { DATA_DIR: tempDataDir() } });
  a = await env.account();
  bid = (await env.business(a.test)).id;
});
afterAll(async () => env?.close());

const expense = {
  categoryKey: 'office',
  supplier: { name: 'ספק', taxId: TAX_IDS.company2 },
  supplierDocType: 'tax_invoice',
  supplierDocNumber: 'INV-1',
  supplierDocDate: '2026-02-27',
  amountExVat: 10000,
  vatAmount: 1800,
};
const draft = { docType: 305, party: { name: 'לקוח', taxId: TAX_IDS.person }, lines: [{ description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000 }] };

/** Each resource: where it is created, read, patched and listed, and a valid create body. */
/** The database's refusal of a raw statement (drizzle wraps it: the trigger's words are in the cause). */
async function refusal(mode: 'sandbox', text: string): Promise<string> {
  try {
    await env.sql(mode, text);
  } catch (err) {
    return String((err as Error).message) + String((err as { cause?: Error }).cause?.message ?? '');
  }
  throw new Error(`not refused: ${text}`);
}

const resources = () => [
  { name: 'business', base: '/v1/businesses', list: 'businesses', body: { name: 'עסק מטא', taxId: TAX_IDS.company, dealerType: 'company' } },
  { name: 'party', base: `/v1/businesses/${bid}/parties`, list: 'parties', body: { name: 'לקוח מטא' } },
  { name: 'document', base: `/v1/businesses/${bid}/documents`, list: 'documents', body: draft },
  { name: 'expense', base: `/v1/businesses/${bid}/expenses`, list: 'expenses', body: expense },
];

describe('metadata on every resource', () => {
  it('is stored on create, returned in every view, replaced whole by a patch and cleared by null', async () => {
    for (const r of resources()) {
      const created = await env.call('POST', r.base, { key: a.test, body: { ...r.body, metadata: { orderId: '1001', 'crm.id': 'acct-17' } } });
      expect(created.status, `${r.name}: ${JSON.stringify(created.body)}`).toBe(201);
      const one = created.body[r.name];
      expect(one.metadata, r.name).toEqual({ orderId: '1001', 'crm.id': 'acct-17' });
      const path = `${r.base}/${one.id}`;
      if (r.name !== 'business') expect((await env.call('GET', path, { key: a.test })).body[r.name].metadata).toEqual(one.metadata);

      const patched = await env.call('PATCH', path, { key: a.test, body: { metadata: { stage: 'paid' } } });
      expect(patched.status, `${r.name}: ${JSON.stringify(patched.body)}`).toBe(200);
      expect(patched.body[r.name].metadata, r.name).toEqual({ stage: 'paid' }); // replaced, not merged
      const untouched = await env.call('PATCH', path, { key: a.test, body: r.name === 'business' ? { phone: null } : {} });
      expect(untouched.body[r.name].metadata, r.name).toEqual({ stage: 'paid' }); // a patch without it keeps it
      const cleared = await env.call('PATCH', path, { key: a.test, body: { metadata: null } });
      expect(cleared.body[r.name].metadata, r.name).toEqual({});

      const plain = await env.call('POST', r.base, { key: a.test, body: r.body });
      expect(plain.body[r.name].metadata, r.name).toEqual({});
    }
  });

  it('is bounded: too many keys, a bad key, a long value or a non-string value answer 400 validation naming the field', async () => {
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    const cases: [unknown, string][] = [
      [many, 'body.metadata: must have at most 20 fields'],
      [{ 'bad key': 'v' }, 'body.metadata: must match the pattern'],
      [{ ['k'.repeat(41)]: 'v' }, 'body.metadata: must match the pattern'],
      [{ '': 'v' }, 'body.metadata: must match the pattern'],
      [{ k: 'v'.repeat(501) }, 'body.metadata.k: must be at most 500 characters'],
      [{ k: 17 }, 'body.metadata.k: must be a string'],
      [{ k: { nested: 'x' } }, 'body.metadata.k: must be a string'],
      [['a'], 'body.metadata: must be an object'],
    ];
    for (const r of resources()) {
      for (const [metadata, field] of cases) {
        const res = await env.call('POST', r.base, { key: a.test, body: { ...r.body, metadata } });
        expect(res.status, `${r.name} ${JSON.stringify(metadata).slice(0, 60)}: ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body.reason).toBe('validation');
        expect(res.body.error).toContain(field);
      }
    }
    // At the bounds exactly: accepted.
    const full = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`${'k'.repeat(38)}${String(i).padStart(2, '0')}`, 'v'.repeat(500)]));
    const ok = await env.call('POST', `/v1/businesses/${bid}/parties`, { key: a.test, body: { name: 'גבולות', metadata: full } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.party.metadata).toEqual(full);
  });

  it('lists filter by exact key/value: metadata=key:value, repeatable, all pairs must match', async () => {
    const tag = `run-${Date.now()}`;
    for (const r of resources()) {
      const make = async (metadata: Record<string, string>) => (await env.call('POST', r.base, { key: a.test, body: { ...r.body, metadata } })).body[r.name].id;
      const both = await make({ batch: tag, order: '17' });
      const other = await make({ batch: tag, order: '18' });
      await make({ batch: `${tag}-x`, order: '17' });
      const ids = async (qs: string) => {
        const res = await env.call('GET', `${r.base}?${qs}`, { key: a.test });
        expect(res.status, `${r.name} ${qs}: ${JSON.stringify(res.body)}`).toBe(200);
        return res.body[r.list].map((x: any) => x.id).sort();
      };
      expect(await ids(`metadata=batch:${tag}`), r.name).toEqual([both, other].sort());
      expect(await ids(`metadata=batch:${tag}&metadata=order:17`), r.name).toEqual([both]);
      expect(await ids(`metadata=${encodeURIComponent(`batch:${tag}`)}&metadata=order:1`), r.name).toEqual([]); // exact, not a prefix
      expect(await ids(`metadata=batch:nothing`), r.name).toEqual([]);
      for (const bad of ['metadata=nocolon', 'metadata=bad%20key:v', `metadata=${'k'.repeat(41)}:v`]) {
        const res = await env.call('GET', `${r.base}?${bad}`, { key: a.test });
        expect(res.status, `${r.name} ${bad}`).toBe(400);
        expect(res.body.reason).toBe('validation');
        expect(res.body.error).toContain('metadata');
      }
    }
  });

  it('a value may hold colons: the pair splits at the first one', async () => {
    const res = await env.call('POST', `/v1/businesses/${bid}/parties`, {
      key: a.test,
      body: { name: 'נקודתיים', metadata: { url: 'https://x.example/a:b' } },
    });
    const list = await env.call('GET', `/v1/businesses/${bid}/parties?metadata=${encodeURIComponent('url:https://x.example/a:b')}`, { key: a.test });
    expect(list.body.parties.map((p: any) => p.id)).toEqual([res.body.party.id]);
  });

  it('the list filter is served by the GIN index (jsonb_path_ops serves @>)', async () => {
    for (const table of ['businesses', 'parties', 'documents', 'expenses']) {
      const [ix] = await env.sql<any>('sandbox', `SELECT indexdef FROM pg_indexes WHERE tablename = '${table}' AND indexname = '${table}_metadata'`);
      expect(ix?.indexdef, table).toContain('gin (metadata jsonb_path_ops)');
    }
    // The condition a list sends. On this small table the planner would scan; with scans priced out, it must be able to use the index.
    const plan = await env.s.databases.sandbox.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      return query<Record<string, string>>(tx, sql`EXPLAIN SELECT id FROM documents WHERE ${metadataCondition(['order:17'])}`);
    });
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('documents_metadata');
  });
});

describe('metadata of an issued document', () => {
  it('is frozen at issue: in the snapshot, refused by PATCH, refused by a raw UPDATE; the PDF and the export leave it out', async () => {
    env.clock.set('2026-03-02T08:00:00.000Z');
    const b = await env.business(a.test);
    const marker = 'ZZMETAQQ';
    const d = await env.call('POST', `/v1/businesses/${b.id}/documents`, { key: a.test, body: { ...draft, metadata: { order: marker } } });
    expect(d.status).toBe(201);
    const id = d.body.document.id;
    const issued = await env.call('POST', `/v1/businesses/${b.id}/documents/${id}/issue`, { key: a.test });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    expect(issued.body.document.metadata).toEqual({ order: marker });

    const [row] = await env.sql<any>('sandbox', `SELECT metadata, snapshot->'metadata' AS snap FROM documents WHERE id = '${id}'`);
    expect(row.metadata).toEqual({ order: marker });
    expect(row.snap).toEqual({ order: marker });

    const patch = await env.call('PATCH', `/v1/businesses/${b.id}/documents/${id}`, { key: a.test, body: { metadata: { order: 'changed' } } });
    expect(patch.status).toBe(409);
    expect(patch.body.reason).toBe('not_draft');
    expect(await refusal('sandbox', `UPDATE documents SET metadata = '{"order":"changed"}'::jsonb WHERE id = '${id}'`)).toMatch(
      /is issued: its content is frozen/,
    );
    expect(await refusal('sandbox', `UPDATE documents SET snapshot = jsonb_set(snapshot, '{metadata}', '{}'::jsonb) WHERE id = '${id}'`)).toMatch(/frozen/);
    expect((await env.call('GET', `/v1/businesses/${b.id}/documents/${id}`, { key: a.test })).body.document.metadata).toEqual({ order: marker });
    const listed = await env.call('GET', `/v1/businesses/${b.id}/documents?metadata=order:${marker}&status=issued`, { key: a.test });
    expect(listed.body.documents.map((x: any) => x.id)).toEqual([id]);

    // A credit note is a document of its own: it starts without the original's metadata.
    const credit = await env.call('POST', `/v1/businesses/${b.id}/documents/${id}/credit-note`, { key: a.test, body: {} });
    expect(credit.status, JSON.stringify(credit.body)).toBe(201);
    expect(credit.body.document.metadata).toEqual({});

    await renderRunner(env).runDue('sandbox');
    const pdf = await env.call('POST', `/v1/businesses/${b.id}/documents/${id}/print`, { key: a.test });
    expect(pdf.status).toBe(200);
    const text = await pdfText(pdf.raw);
    expect(text).toContain('לקוח'); // the extraction works on this PDF…
    expect(text).not.toContain(marker); // …and the metadata is not printed

    env.clock.advance(60_000);
    const run = await env.call('POST', `/v1/businesses/${b.id}/exports/openfrmt`, { key: a.test, body: { from: '2026-03-01', to: '2026-03-31' } });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    const zip = await env.call('GET', `/v1/files/${run.body.file.id}`, { key: a.test });
    const files = Object.values(unzipSync(new Uint8Array(zip.raw)));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(Buffer.from(f).toString('latin1')).not.toContain(marker);
    expect(files.some((f) => Buffer.from(f).toString('latin1').includes('C100'))).toBe(true);
  });

  it('a recorded expense keeps its metadata: PATCH and raw UPDATE are refused', async () => {
    const e = await env.call('POST', `/v1/businesses/${bid}/expenses`, { key: a.test, body: { ...expense, metadata: { po: '55' } } });
    const id = e.body.expense.id;
    const rec = await env.call('POST', `/v1/businesses/${bid}/expenses/${id}/record`, { key: a.test });
    expect(rec.status, JSON.stringify(rec.body)).toBe(201);
    expect(rec.body.expense.metadata).toEqual({ po: '55' });
    const patch = await env.call('PATCH', `/v1/businesses/${bid}/expenses/${id}`, { key: a.test, body: { metadata: null } });
    expect(patch.status).toBe(409);
    expect(await refusal('sandbox', `UPDATE expenses SET metadata = '{}'::jsonb WHERE id = '${id}'`)).toMatch(/recorded expense is immutable/);
  });
});
