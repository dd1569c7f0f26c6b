/**
 * `q` reads documents.search_text (migration 0024), a column PostgreSQL generates from the party
 * and the lines on every write (lower-cased, joined by newlines). These follow a document through each write path of the API (draft
 * create, draft update, issue with a renamed saved party, credit note) and search it in Hebrew and
 * English, in another case, by a line's description and by the party's name: from the newest rows
 * (phase 1) and through the trigram index (phase 2, forced by a probe of one row).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { listDocuments } from '../../src/documents/list.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

describe('q through search_text', () => {
  let bid: string;
  const base = () => `/v1/businesses/${bid}/documents`;
  const call = (method: string, path: string, body?: unknown) => env.call(method, path, { key: a.test, body });
  /** The ids `q` finds, with the default probe and with a probe of one row (phase 2, trigram index). */
  async function found(q: string, extra: Record<string, unknown> = {}) {
    const phase1 = (await listDocuments(env.db.sandbox.db, bid, { q, take: 50, ...extra } as never)).documents.map((d) => d.id);
    const phase2 = (await listDocuments(env.db.sandbox.db, bid, { q, take: 50, ...extra } as never, { probeRows: 1 })).documents.map((d) => d.id);
    expect(phase2, q).toEqual(phase1);
    const http = await call('GET', `${base()}?take=50&q=${encodeURIComponent(q)}`);
    expect(http.status).toBe(200);
    if (Object.keys(extra).length === 0) expect(http.body.documents.map((d: { id: string }) => d.id)).toEqual(phase1);
    return phase1;
  }
  const searchText = async (id: string) =>
    (await env.sql<{ search_text: string }>('sandbox', `SELECT search_text FROM documents WHERE id = '${id}'`))[0].search_text;

  beforeAll(async () => {
    bid = (await env.business(a.test)).id;
    // Other documents: with more rows than a probe of one row reads (its window is 10 rows at least),
    // and fewer matches than the page needs, the page comes from phase 2.
    for (let i = 0; i < 20; i++) {
      const d = await call('POST', base(), {
        docType: 305,
        party: { name: `Filler ${i}` },
        lines: [{ description: 'שונות', quantity: 1, unitPriceExVat: 100 }],
      });
      expect(d.status, JSON.stringify(d.body)).toBe(201);
    }
  });

  it('finds a draft by a line description and by the party name, in Hebrew and English, in any case', async () => {
    const d = await call('POST', base(), {
      docType: 305,
      party: { name: 'Acme Widgets בע"מ' },
      lines: [
        { description: 'Annual SUPPORT plan', quantity: 1, unitPriceExVat: 1000 },
        { description: 'התקנת מזגן', quantity: 1, unitPriceExVat: 500 },
      ],
    });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    const id = d.body.document.id as string;
    // A newer document, so that the draft is not the newest row.
    await call('POST', base(), { docType: 305, lines: [{ description: 'אחר', quantity: 1, unitPriceExVat: 100 }] });
    expect(await searchText(id)).toBe('acme widgets בע"מ\nannual support plan\nהתקנת מזגן');
    for (const q of ['acme WIDGETS', 'בע"מ', 'support PLAN', 'מזגן', 'Annual', 'ac']) expect(await found(q), q).toEqual([id]);
    expect(await found('מזגן', { docType: 320 })).toEqual([]);
    expect(await found('מזגן', { docType: 305 })).toEqual([id]);
    // Not across the name and a description, nor across two descriptions.
    expect(await found('בע"מ Annual')).toEqual([]);
    expect(await found('plan התקנת')).toEqual([]);
    expect(await found('plan\nהתקנת')).toEqual([]);

    // A draft update rewrites the column: the old description is no longer found, the new one is.
    const p = await call('PATCH', `${base()}/${id}`, {
      lines: [{ description: 'Server HOSTING', quantity: 1, unitPriceExVat: 1000 }],
      party: { name: 'כהן ושות' },
    });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(await searchText(id)).toBe('כהן ושות\nserver hosting');
    expect(await found('support')).toEqual([]);
    expect(await found('acme')).toEqual([]);
    expect(await found('server hosting')).toEqual([id]);
    expect(await found('כהן ושות')).toEqual([id]);
  });

  it('a description holding a newline is found by a text spanning it, and only there', async () => {
    const d = await call('POST', base(), { docType: 305, party: { name: 'Zeta' }, lines: [{ description: 'גג\nאיטום', quantity: 1, unitPriceExVat: 100 }] });
    const id = d.body.document.id as string;
    await call('POST', base(), { docType: 305, lines: [{ description: 'אחר', quantity: 1, unitPriceExVat: 100 }] });
    expect(await found('ג\nא')).toEqual([id]);
    // The separator between the name and the description is not part of either.
    expect(await found('zeta\nגג')).toEqual([]);
  });

  it('a document whose texts pass 1,000 bytes (no search_text) is found through its jsonb', async () => {
    // 40 descriptions of 28 characters, 22 of them Hebrew letters: ~2,000 bytes in UTF-8.
    const lines = Array.from({ length: 40 }, (_, i) => ({
      description: `${'ש'.repeat(22)} ${String(i).padStart(2, '0')}ABC`,
      quantity: 1,
      unitPriceExVat: 100,
    }));
    lines.push({ description: 'Final Cleaning פינוי', quantity: 1, unitPriceExVat: 100 });
    const d = await call('POST', base(), { docType: 305, party: { name: 'LongText Co' }, lines });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    const id = d.body.document.id as string;
    await call('POST', base(), { docType: 305, lines: [{ description: 'אחר', quantity: 1, unitPriceExVat: 100 }] });
    expect(await searchText(id)).toBeNull();
    for (const q of ['longtext co', 'FINAL cleaning', 'פינוי', '38abc', 'שש 03a']) expect(await found(q), q).toEqual([id]);
    // Not across two descriptions, nor across the name and a description.
    expect(await found('03abc\nשש')).toEqual([]);
    expect(await found('co\nשש')).toEqual([]);
    expect(await found('פינוי', { docType: 320 })).toEqual([]);
  });

  it('issue (a saved party renamed meanwhile) and the credit note are found by their frozen texts', async () => {
    const party = await call('POST', `/v1/businesses/${bid}/parties`, { name: 'Old Name Ltd' });
    expect(party.status, JSON.stringify(party.body)).toBe(201);
    const d = await call('POST', base(), {
      docType: 305,
      party: { partyId: party.body.party.id },
      lines: [{ description: 'ייעוץ משפטי Legal', quantity: 1, unitPriceExVat: 10_000 }],
    });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    const id = d.body.document.id as string;
    expect(await found('old name')).toEqual([id]);
    await call('PATCH', `/v1/businesses/${bid}/parties/${party.body.party.id}`, { name: 'שם חדש Ltd' });
    const i = await call('POST', `${base()}/${id}/issue`);
    expect(i.status, JSON.stringify(i.body)).toBe(201);
    expect(await searchText(id)).toBe('שם חדש ltd\nייעוץ משפטי legal');
    expect(await found('old name')).toEqual([]);
    expect(await found('שם חדש')).toEqual([id]);

    const cn = await call('POST', `${base()}/${id}/credit-note`, { reason: 'החזרה' });
    expect(cn.status, JSON.stringify(cn.body)).toBe(201);
    const cnId = cn.body.document.id as string;
    await call('POST', base(), { docType: 305, lines: [{ description: 'אחר', quantity: 1, unitPriceExVat: 100 }] });
    // (The order of the two is the list's: the test clock may give them one created_at.)
    expect((await found('LEGAL')).sort()).toEqual([cnId, id].sort());
    expect((await found('שם חדש ltd')).sort()).toEqual([cnId, id].sort());
    expect(await found('legal', { docType: 330 })).toEqual([cnId]);
    // The issued rows stay frozen, and still take the changes allowed after issue.
    await env.sql('sandbox', `UPDATE documents SET print_count = print_count + 1 WHERE id = '${id}'`);
    expect(await searchText(id)).toBe('שם חדש ltd\nייעוץ משפטי legal');
  });
});
