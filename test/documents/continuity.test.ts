/**
 * The continuity report against the series' own start number and counter. Issued documents are
 * protected by triggers (no delete, no renumber), so the tampering happens where it still can: the
 * counter table, moved forward by raw SQL (its trigger allows only forward moves) or created ahead
 * of the first issue. Each must show as gaps of its own type only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { pgErrorMessage } from '../../src/platform/db/sql.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

const line = { description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000 };
const BODY: Record<number, Record<string, unknown>> = {
  305: { docType: 305, lines: [line] },
  320: { docType: 320, lines: [line], payments: [{ method: 'cash', amount: 11_800 }] },
  400: { docType: 400, payments: [{ method: 'cash', amount: 500 }] },
};

async function issue(bid: string, docType: number): Promise<number> {
  const d = await env.call('POST', `/v1/businesses/${bid}/documents`, { key: a.test, body: BODY[docType] });
  const r = await env.call('POST', `/v1/businesses/${bid}/documents/${d.body.document.id}/issue`, { key: a.test });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.document.docNumber;
}
async function report(bid: string, docType?: number) {
  const r = await env.call('GET', `/v1/businesses/${bid}/reports/continuity${docType ? `?docType=${docType}` : ''}`, { key: a.test });
  expect(r.status).toBe(200);
  return r.body.report as { ok: boolean; byDocType: Record<string, unknown>[] };
}
const entry = async (bid: string, docType: number) => (await report(bid)).byDocType.find((e) => e.docType === docType)!;
// The database refuses a counter moved without its document (migration 0028): these simulate a superuser behind the triggers.
const counterSql = (bid: string, docType: number, set: string) =>
  env.tamper('sandbox', `UPDATE document_counters SET ${set} WHERE business_id = '${bid}' AND doc_type = ${docType}`);

const clean = { gaps: [], gapCount: 0, duplicates: [], outOfSeries: [] };

describe('continuity against the start number and the counter', () => {
  it('an untouched series is clean, every field shown', async () => {
    const b = await env.business(a.test);
    for (let i = 0; i < 3; i++) await issue(b.id, 305);
    const r = await report(b.id);
    expect(r.ok).toBe(true);
    const untouched = (docType: number) => ({ docType, first: null, last: null, count: 0, expectedFirst: 1, counter: null, ...clean });
    expect(r.byDocType).toEqual([
      ...[10, 100, 200, 210, 300].map(untouched),
      { docType: 305, first: 1, last: 3, count: 3, expectedFirst: 1, counter: 3, ...clean },
      { docType: 320, first: null, last: null, count: 0, expectedFirst: 1, counter: null, ...clean },
      { docType: 330, first: null, last: null, count: 0, expectedFirst: 1, counter: null, ...clean },
      { docType: 400, first: null, last: null, count: 0, expectedFirst: 1, counter: null, ...clean },
      untouched(405),
    ]);
  });

  it('numbers handed out after the last stored one (a counter bumped by raw SQL) are gaps of that type only', async () => {
    const b = await env.business(a.test);
    for (let i = 0; i < 8; i++) await issue(b.id, 320);
    await issue(b.id, 400);
    await counterSql(b.id, 320, 'last_number = 10');
    const r = await report(b.id);
    expect(r.ok).toBe(false);
    expect(r.byDocType.find((e) => e.docType === 320)).toEqual({
      docType: 320,
      first: 1,
      last: 8,
      count: 8,
      expectedFirst: 1,
      counter: 10,
      gaps: [9, 10],
      gapCount: 2,
      duplicates: [],
      outOfSeries: [],
    });
    expect(r.byDocType.find((e) => e.docType === 400)).toMatchObject({ first: 1, last: 1, counter: 1, ...clean });
    // The filtered report agrees, and a type without the tampering is ok on its own.
    expect((await report(b.id, 320)).ok).toBe(false);
    expect((await report(b.id, 400)).ok).toBe(true);
    // The next issue continues after the counter: the gap stays, now between stored numbers.
    expect(await issue(b.id, 320)).toBe(11);
    expect(await entry(b.id, 320)).toMatchObject({ first: 1, last: 11, count: 9, counter: 11, gaps: [9, 10], gapCount: 2 });
  });

  it('a missing first number: the series starts at 1 but the first stored is 3', async () => {
    const b = await env.business(a.test);
    // The counter row exists ahead of the first issue, already past 1 and 2.
    await env.tamper('sandbox', `INSERT INTO document_counters(business_id, doc_type, start_number, last_number) VALUES ('${b.id}', 305, 1, 2)`);
    expect(await issue(b.id, 305)).toBe(3);
    expect(await issue(b.id, 305)).toBe(4);
    const r = await report(b.id);
    expect(r.ok).toBe(false);
    expect(r.byDocType.find((e) => e.docType === 305)).toEqual({
      docType: 305,
      first: 3,
      last: 4,
      count: 2,
      expectedFirst: 1,
      counter: 4,
      gaps: [1, 2],
      gapCount: 2,
      duplicates: [],
      outOfSeries: [],
    });
  });

  it('a series started at a chosen number is measured from it: clean, then a runaway counter', async () => {
    const b = await env.business(a.test, { numbering: { '305': 1001 } });
    expect(await entry(b.id, 305)).toEqual({ docType: 305, first: null, last: null, count: 0, expectedFirst: 1001, counter: null, ...clean });
    expect(await issue(b.id, 305)).toBe(1001);
    expect(await issue(b.id, 305)).toBe(1002);
    expect(await report(b.id)).toMatchObject({ ok: true });
    expect(await entry(b.id, 305)).toEqual({ docType: 305, first: 1001, last: 1002, count: 2, expectedFirst: 1001, counter: 1002, ...clean });
    // A counter run far ahead: the first gaps are listed, all of them counted.
    await counterSql(b.id, 305, 'last_number = 1002 + 5000');
    const e = await entry(b.id, 305);
    expect(e).toMatchObject({ first: 1001, last: 1002, counter: 6002, gapCount: 5000 });
    expect(e.gaps).toEqual(Array.from({ length: 1000 }, (_, i) => 1003 + i));
  });

  it('a series whose counter handed out numbers but stored none is all gaps', async () => {
    const b = await env.business(a.test);
    await env.tamper('sandbox', `INSERT INTO document_counters(business_id, doc_type, start_number, last_number) VALUES ('${b.id}', 400, 7, 9)`);
    const r = await report(b.id, 400);
    expect(r).toEqual({
      ok: false,
      byDocType: [
        { docType: 400, first: null, last: null, count: 0, expectedFirst: 7, counter: 9, gaps: [7, 8, 9], gapCount: 3, duplicates: [], outOfSeries: [] },
      ],
    });
  });

  it('the counter cannot be moved back to hide a gap', async () => {
    const b = await env.business(a.test);
    await issue(b.id, 305);
    await counterSql(b.id, 305, 'last_number = 3');
    const refused = await env.sql('sandbox', `UPDATE document_counters SET last_number = 1 WHERE business_id = '${b.id}' AND doc_type = 305`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(pgErrorMessage(refused)).toMatch(/only moves forward/);
    expect(await entry(b.id, 305)).toMatchObject({ counter: 3, gaps: [2, 3] });
  });

  it('the OpenAPI document shows the new fields of the report', async () => {
    const doc = (await env.call('GET', '/v1/openapi.json')).body;
    const ok = doc.paths['/v1/businesses/{bid}/reports/continuity'].get.responses['200'].content['application/json'].schema;
    const item = ok.properties.report.properties.byDocType.items;
    expect(Object.keys(item.properties)).toEqual([
      'docType',
      'first',
      'last',
      'count',
      'expectedFirst',
      'counter',
      'gaps',
      'gapCount',
      'duplicates',
      'outOfSeries',
    ]);
    expect(item.required).toEqual(expect.arrayContaining(['expectedFirst', 'counter', 'gapCount', 'outOfSeries']));
  });
});
