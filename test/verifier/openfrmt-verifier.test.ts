/**
 * The independent verifier (openfrmt-verifier.ts) against a real export produced through the API, then
 * against that export with one defect planted at a time: each must be reported, with its line and field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipSync } from 'fflate';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { issueDoc, issueFixture } from '../exports/fixture.ts';
import { verifyExportThroughApi } from './api.ts';
import {
  acquirerCode,
  dealTypeCode,
  formatDefect,
  readExportZip,
  validIsraeliId,
  verifyOpenfrmt,
  type ApiDocument,
  type ApiLedger,
  type Defect,
} from './openfrmt-verifier.ts';
import { BKMV_LAYOUTS, INI_LAYOUTS, type Layout } from './spec-layouts.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

describe('the spec layouts as transcribed', () => {
  it('tile every record from column 1 to its §2.5 length, field numbers ascending', () => {
    for (const L of [...Object.values(INI_LAYOUTS), ...Object.values(BKMV_LAYOUTS)] as Layout[]) {
      let next = 1;
      let prev = 0;
      for (const [id, from, to, pic] of L.fields) {
        expect(from, `${L.code} ${id}`).toBe(next);
        expect(id, `${L.code} ${id}`).toBeGreaterThan(prev);
        const m = /^X?9?\((\d+)\)(?:v(9+))?$/.exec(pic)!;
        const len = Number(m[1]) + (m[2]?.length ?? 0) + (pic.startsWith('X9') ? 1 : 0);
        expect(to - from + 1, `${L.code} ${id} ${pic}`).toBe(len);
        next = to + 1;
        prev = id;
      }
      expect(next - 1, L.code).toBe(L.length);
    }
  });
});

describe('verifier helpers', () => {
  it('check digits of Israeli ids', () => {
    for (const id of Object.values(TAX_IDS)) expect(validIsraeliId(id), id).toBe(true);
    for (const id of ['516179158', '123456789', '000000000', '12345678X', '1234567890']) expect(validIsraeliId(id), id).toBe(false);
    expect(validIsraeliId('2233445')).toBe(false);
    expect(validIsraeliId('002233445')).toBe(false);
  });
  it('code tables of §5.3/§5.4', () => {
    expect(['isracard', 'ישראכרט', 'cal', 'Diners', 'amex', 'American Express', 'max', 'לאומי קארד', 'unknown', null].map(acquirerCode)).toEqual([
      1, 1, 2, 3, 4, 4, 6, 6, 0, 0,
    ]);
    expect(['regular', 'installments', 'credit', 'deferred', 'other', 'רגיל', '2', 'x', null].map(dealTypeCode)).toEqual([1, 2, 3, 4, 5, 1, 2, 0, 0]);
  });
});

// ---------------------------------------------------------------- a real export and planted defects

let bid: string;
let zip: Uint8Array;
let documents: ApiDocument[];
let business: any;
let ledger: ApiLedger | undefined;
let range: { from: string; to: string };

/** The fixture of test/exports plus a gross document, a negative receipt and an anonymous 320 with its credit note. */
beforeAll(async () => {
  const b = await env.business(a.test);
  bid = b.id;
  const { receipt } = await issueFixture(env, a, bid);
  const gross = await issueDoc(env, a.test, bid, {
    docType: 305,
    priceMode: 'gross',
    party: { name: 'Gross Buyer' },
    lines: [
      { description: 'gross line', quantity: 3, unitPriceExVat: 11_800, lineDiscount: 100 },
      { description: 'שורה ₪', quantity: 0.3333, unitPriceExVat: 999, unit: 'ק״ג' },
    ],
    discountAmount: 250,
  });
  const anon = await issueDoc(env, a.test, bid, {
    docType: 320,
    party: { name: 'אנונימי' },
    lines: [{ description: 'x', quantity: 1, unitPriceExVat: 1000 }],
    payments: [{ method: 'cash', amount: 1180 }],
  });
  // The commercial papers (issue 30): 100, 200, 210 and 300 are written as C100 + D110; a price quote (10) is not exported.
  const papers: Record<number, any> = {};
  for (const docType of [10, 100, 200, 210, 300])
    papers[docType] = await issueDoc(env, a.test, bid, {
      docType,
      party: { name: 'בונים בע"מ', taxId: '512200502' },
      lines: [{ description: `paper ${docType}`, quantity: 2.5, unitPriceExVat: 40_000, lineDiscount: 500 }],
      discountAmount: 1_000,
    });
  // A 305 converted from part of the 200: its line names the note as its base document (D110 1256/1257).
  const conv = await env.call('POST', `/v1/businesses/${bid}/documents/${papers[200].id}/convert`, {
    key: a.test,
    body: { docType: 305, lines: [{ index: 0, quantity: 1.5 }] },
  });
  expect(conv.status, JSON.stringify(conv.body)).toBe(201);
  const convIssued = await env.call('POST', `/v1/businesses/${bid}/documents/${conv.body.document.id}/issue`, { key: a.test });
  expect(convIssued.status, JSON.stringify(convIssued.body)).toBe(201);
  for (const d of [receipt, gross, anon]) {
    const r = await env.call('POST', `/v1/businesses/${bid}/documents/${d.id}/credit-note`, { key: a.test, body: {} });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
  env.clock.advance(60_000);
  range = { from: '2026-01-01', to: '2026-12-31' };
  const ex = await env.call('POST', `/v1/businesses/${bid}/exports/openfrmt`, { key: a.test, body: range });
  expect(ex.status, JSON.stringify(ex.body)).toBe(201);
  const v = await verifyExportThroughApi(env, a.test, bid, { fileId: ex.body.file.id, ...range });
  zip = v.zip;
  documents = v.documents;
  business = v.business;
  ledger = v.ledger;
  expect(business.bookkeeping).toBe('double');
  expect(records(zip).bk.filter((r) => r.startsWith('B100')).length).toBeGreaterThan(0);
  expect(v.defects.map(formatDefect)).toEqual([]);
  const types = records(zip)
    .bk.filter((r) => r.startsWith('C100'))
    .map((r) => Number(col(r, 'C100', 1203)));
  for (const t of [100, 200, 210, 300]) expect(types).toContain(t);
  expect(types).not.toContain(10);
  expect(documents.some((d) => d.docType === 10)).toBe(true);
});

type Files = { ini: string[]; bk: string[] };
/** Records of both files as latin1 strings (one char per byte), without their CRLF. */
function records(z: Uint8Array): Files & { dir: string } {
  const { dir, files } = readExportZip(z);
  const split = (b: Uint8Array) => Buffer.from(b).toString('latin1').split('\r\n').slice(0, -1);
  return { dir, ini: split(files[`${dir}INI.TXT`]), bk: split(files[`${dir}BKMVDATA.TXT`]) };
}
function rezip(dir: string, f: Files, raw?: { ini?: Buffer; bk?: Buffer }): Uint8Array {
  const enc = (rs: string[]) => Buffer.from(rs.map((r) => r + '\r\n').join(''), 'latin1');
  return zipSync({ [`${dir}INI.TXT`]: raw?.ini ?? enc(f.ini), [`${dir}BKMVDATA.TXT`]: raw?.bk ?? enc(f.bk) });
}
function pos(code: string, field: number): [number, number] {
  const L = code === 'A000' ? INI_LAYOUTS.A000 : BKMV_LAYOUTS[code];
  const f = L.fields.find((x) => x[0] === field)!;
  return [f[1] - 1, f[2]];
}
const col = (rec: string, code: string, field: number) => rec.slice(...pos(code, field));
function put(rec: string, code: string, field: number, value: string): string {
  const [s, e] = pos(code, field);
  expect(value.length, `${code}/${field}`).toBe(e - s);
  return rec.slice(0, s) + value + rec.slice(e);
}
function verify(z: Uint8Array): Defect[] {
  return verifyOpenfrmt({ zip: z, business: { taxId: business.taxId, name: business.name }, documents, range, ledger });
}
/** Plants one defect with `mutate` and answers the defects found. */
function plant(mutate: (f: Files) => void): Defect[] {
  const r = records(zip);
  mutate(r);
  return verify(rezip(r.dir, r));
}
const find = (f: Files, code: string, pred: (r: string) => boolean = () => true) => {
  const i = f.bk.findIndex((r) => r.startsWith(code) && pred(r));
  expect(i, code).toBeGreaterThanOrEqual(0);
  return i;
};
const expectDefect = (defects: Defect[], m: Partial<Defect> & { reason?: any }) => {
  expect(defects.length, 'a defect is reported').toBeGreaterThan(0);
  expect(defects, defects.map(formatDefect).join('\n')).toContainEqual(expect.objectContaining(m));
};

describe('the verifier reports planted defects', () => {
  it('accepts the export as produced (control)', () => {
    expect(verify(zip).map(formatDefect)).toEqual([]);
  });

  it('a flipped sign: a credit note (330) written negative', () => {
    let line = 0;
    const d = plant((f) => {
      const i = find(f, 'C100', (r) => col(r, 'C100', 1203) === '330');
      line = i + 1;
      f.bk[i] = put(f.bk[i], 'C100', 1221, '-' + col(f.bk[i], 'C100', 1221).slice(1));
    });
    expectDefect(d, { line, record: 'C100', field: 1221, reason: expect.stringMatching(/positive/) });
  });

  it('a flipped sign: a discount written positive, a reversal receipt written positive', () => {
    let line = 0;
    let d = plant((f) => {
      const i = find(f, 'C100', (r) => col(r, 'C100', 1220).startsWith('-'));
      line = i + 1;
      f.bk[i] = put(f.bk[i], 'C100', 1220, '+' + col(f.bk[i], 'C100', 1220).slice(1));
    });
    expectDefect(d, { line, field: 1220, reason: expect.stringMatching(/clarification 5/) });
    d = plant((f) => {
      const i = find(f, 'C100', (r) => col(r, 'C100', 1203) === '400' && col(r, 'C100', 1223).startsWith('-'));
      line = i + 1;
      for (const fld of [1219, 1221, 1223]) f.bk[i] = put(f.bk[i], 'C100', fld, '+' + col(f.bk[i], 'C100', fld).slice(1));
    });
    expectDefect(d, { line, field: 1223 });
    expectDefect(d, { line, field: 1219 });
  });

  it('a negative receipt whose withholding keeps the positive sign', () => {
    let line = 0;
    const d = plant((f) => {
      const i = find(f, 'C100', (r) => col(r, 'C100', 1203) === '400' && col(r, 'C100', 1224).startsWith('-'));
      line = i + 1;
      f.bk[i] = put(f.bk[i], 'C100', 1224, '+' + col(f.bk[i], 'C100', 1224).slice(1));
    });
    expectDefect(d, { line, field: 1224 });
  });

  it('a changed amount in a line, in a payment, in the VAT', () => {
    for (const [code, field] of [
      ['D110', 1267],
      ['D110', 1264],
      ['D120', 1312],
      ['C100', 1222],
    ] as const) {
      let line = 0;
      const d = plant((f) => {
        const i = find(f, code);
        line = i + 1;
        const v = col(f.bk[i], code, field);
        f.bk[i] = put(f.bk[i], code, field, v[0] + String(BigInt(v.slice(1)) + 1n).padStart(v.length - 1, '0'));
      });
      expect(d.length, `${code}/${field} at line ${line}: ${records(zip).bk[line - 1]}`).toBeGreaterThan(0);
      expectDefect(d, { line, record: code, field });
    }
  });

  it('a truncated record', () => {
    let line = 0;
    const d = plant((f) => {
      const i = find(f, 'D120');
      line = i + 1;
      f.bk[i] = f.bk[i].slice(0, -1);
    });
    expectDefect(d, { line, record: 'D120', field: null, reason: expect.stringMatching(/record length 221, the spec's D120 is 222/) });
  });

  it('a wrong record count in INI.TXT, in A000/1002, in Z900/1155', () => {
    let d = plant((f) => {
      const i = f.ini.findIndex((r) => r.startsWith('C100'));
      f.ini[i] = 'C100' + String(Number(f.ini[i].slice(4)) + 1).padStart(15, '0');
    });
    expectDefect(d, { file: 'INI.TXT', record: 'C100', field: 1051 });
    d = plant((f) => {
      f.ini[0] = put(f.ini[0], 'A000', 1002, String(Number(col(f.ini[0], 'A000', 1002)) - 1).padStart(15, '0'));
    });
    expectDefect(d, { file: 'INI.TXT', record: 'A000', field: 1002 });
    d = plant((f) => {
      const z = f.bk.length - 1;
      f.bk[z] = put(f.bk[z], 'Z900', 1155, '9'.padStart(15, '0'));
    });
    expectDefect(d, { record: 'Z900', field: 1155 });
    d = plant((f) => {
      f.ini = f.ini.filter((r) => !r.startsWith('D120'));
    });
    expectDefect(d, { file: 'INI.TXT', record: 'D120', reason: expect.stringMatching(/no summary record/) });
  });

  it('a broken check digit: the buyer in C100/1215, the maker in A000/1009, the business everywhere', () => {
    let line = 0;
    let d = plant((f) => {
      const i = find(f, 'C100', (r) => col(r, 'C100', 1215) === TAX_IDS.company2);
      line = i + 1;
      f.bk[i] = put(f.bk[i], 'C100', 1215, '512200503');
    });
    expectDefect(d, { line, field: 1215, reason: expect.stringMatching(/check digit/) });
    d = plant((f) => {
      f.ini[0] = put(f.ini[0], 'A000', 1009, '123456783');
    });
    expectDefect(d, { file: 'INI.TXT', field: 1009, reason: expect.stringMatching(/check digit/) });
    // the business's own number, broken in every record (and in the business the API answers)
    const r = records(zip);
    const broken = rezip(r.dir, {
      ini: [put(r.ini[0], 'A000', 1003, '516179158'), ...r.ini.slice(1)],
      bk: r.bk.map((x) => x.slice(0, 13) + '516179158' + x.slice(22)),
    });
    const other = verifyOpenfrmt({ zip: broken, business: { taxId: '516179158' }, documents, range });
    expectDefect(other, { file: 'INI.TXT', field: 1003, reason: expect.stringMatching(/check digit/) });
    // and a business whose number differs from the file's
    expectDefect(verifyOpenfrmt({ zip, business: { taxId: TAX_IDS.company2 }, documents, range }), {
      file: 'zip',
      reason: expect.stringMatching(/first eight digits/),
    });
  });

  it('a missing D110, even when numbering and every count are made consistent again', () => {
    let header = '';
    const d = plant((f) => {
      const i = find(f, 'D110', (r) => col(r, 'D110', 1255) === '0002');
      header = col(f.bk[i], 'D110', 1253) + ' ' + col(f.bk[i], 'D110', 1254).trim();
      f.bk.splice(i, 1);
      f.bk = f.bk.map((r, k) => r.slice(0, 4) + String(k + 1).padStart(9, '0') + r.slice(13));
      const z = f.bk.length - 1;
      f.bk[z] = put(f.bk[z], 'Z900', 1155, String(f.bk.length).padStart(15, '0'));
      f.ini[0] = put(f.ini[0], 'A000', 1002, String(f.bk.length).padStart(15, '0'));
      const j = f.ini.findIndex((r) => r.startsWith('D110'));
      f.ini[j] = 'D110' + String(Number(f.ini[j].slice(4)) - 1).padStart(15, '0');
    });
    expectDefect(d, { record: 'C100', reason: expect.stringMatching(new RegExp(`^${header}: 1 D110 records, the document has 2 lines`)) });
  });

  it('a running number out of order, a primary id that differs, a wrong constant', () => {
    let d = plant((f) => {
      f.bk[2] = put(f.bk[2], f.bk[2].slice(0, 4), Number(BKMV_LAYOUTS[f.bk[2].slice(0, 4)].fields[1][0]), '000000009');
    });
    expectDefect(d, { line: 3, reason: expect.stringMatching(/running record number/) });
    d = plant((f) => {
      const z = f.bk.length - 1;
      f.bk[z] = put(f.bk[z], 'Z900', 1153, '123456789012345');
    });
    expectDefect(d, { record: 'Z900', field: 1153 });
    d = plant((f) => {
      f.bk[0] = put(f.bk[0], 'A100', 1104, '&OF1.31 ');
    });
    expectDefect(d, { record: 'A100', field: 1104 });
  });

  it('pictures: an impossible date, a minus zero, letters in a numeric field, text right-aligned', () => {
    let d = plant((f) => {
      const i = find(f, 'C100');
      f.bk[i] = put(f.bk[i], 'C100', 1230, '20260230');
    });
    expectDefect(d, { field: 1230, reason: expect.stringMatching(/not a real calendar date/) });
    d = plant((f) => {
      const i = find(f, 'C100', (r) => col(r, 'C100', 1222) === '+00000000000000');
      f.bk[i] = put(f.bk[i], 'C100', 1222, '-00000000000000');
    });
    expectDefect(d, { field: 1222, reason: expect.stringMatching(/shown as positive/) });
    d = plant((f) => {
      const i = find(f, 'D120');
      f.bk[i] = put(f.bk[i], 'D120', 1307, '00000000A1');
    });
    expectDefect(d, { record: 'D120', field: 1307, reason: expect.stringMatching(/digits only/) });
    d = plant((f) => {
      const i = find(f, 'D110');
      const v = col(f.bk[i], 'D110', 1260).trimEnd();
      f.bk[i] = put(f.bk[i], 'D110', 1260, v.padStart(30, ' '));
    });
    expectDefect(d, { record: 'D110', field: 1260, reason: expect.stringMatching(/left-aligned/) });
  });

  it("a converted line's base document: a wrong type, a wrong number, one on a line converted from nothing", () => {
    const converted = (r: string) => r.startsWith('D110') && col(r, 'D110', 1256) === '200';
    let d = plant((f) => {
      const i = find(f, 'D110', converted);
      f.bk[i] = put(f.bk[i], 'D110', 1256, '100');
    });
    expectDefect(d, { record: 'D110', field: 1256, reason: expect.stringMatching(/converted from a 200/) });
    d = plant((f) => {
      const i = find(f, 'D110', converted);
      f.bk[i] = put(f.bk[i], 'D110', 1257, '9'.padEnd(20, ' '));
    });
    expectDefect(d, { record: 'D110', field: 1257 });
    d = plant((f) => {
      const i = find(f, 'D110', (r) => col(r, 'D110', 1253) === '300');
      f.bk[i] = put(f.bk[i], 'D110', 1256, '200');
    });
    expectDefect(d, { record: 'D110', field: 1256, reason: expect.stringMatching(/converted from nothing/) });
  });

  it('codes: a payment method, an acquirer 5, a link field, a base document', () => {
    let d = plant((f) => {
      const i = find(f, 'D120', (r) => col(r, 'D120', 1306) === '1');
      f.bk[i] = put(f.bk[i], 'D120', 1306, '4');
    });
    expectDefect(d, { record: 'D120', field: 1306 });
    d = plant((f) => {
      const i = find(f, 'D120', (r) => col(r, 'D120', 1306) === '3');
      f.bk[i] = put(f.bk[i], 'D120', 1313, '5');
    });
    expectDefect(d, { record: 'D120', field: 1313, reason: expect.stringMatching(/no 5/) });
    d = plant((f) => {
      const i = find(f, 'D110');
      f.bk[i] = put(f.bk[i], 'D110', 1273, '0000999');
    });
    expectDefect(d, { record: 'D110', field: 1273, reason: expect.stringMatching(/clarification 11/) });
    d = plant((f) => {
      const i = find(f, 'D110', (r) => col(r, 'D110', 1253) === '330');
      f.bk[i] = put(f.bk[i], 'D110', 1256, '320');
    });
    expectDefect(d, { record: 'D110', field: 1256 });
  });

  it('a document missing from the export, and one the API does not know', () => {
    const i = documents.findIndex((x) => x.docType === 305);
    const fewer = documents.filter((_, k) => k !== i);
    expectDefect(verifyOpenfrmt({ zip, business: { taxId: business.taxId }, documents: fewer, range }), {
      record: 'C100',
      field: 1204,
      reason: expect.stringMatching(/no issued document/),
    });
    const more = [...documents, { ...documents[i], id: 'doc_x', docNumber: 99 }];
    expectDefect(verifyOpenfrmt({ zip, business: { taxId: business.taxId }, documents: more, range }), {
      file: 'documents',
      reason: expect.stringMatching(/305 99 .* has no C100/),
    });
  });

  it('the ledger: a changed amount, a line moved to another account, a missing B110, a wrong opening balance, 1013', () => {
    const firstB100 = (f: Files) => f.bk.findIndex((x) => x.startsWith('B100'));
    // One amount up by an agora: the entry no longer balances and no longer matches the books.
    const amount = plant((f) => {
      const i = firstB100(f);
      const v = BigInt(col(f.bk[i], 'B100', 1368));
      f.bk[i] = put(f.bk[i], 'B100', 1368, '+' + String(v + 1n).padStart(14, '0'));
    });
    expectDefect(amount, { record: 'B100', field: 1368, reason: expect.stringMatching(/the books have/) });
    expectDefect(amount, { record: 'B100', field: 1368, reason: expect.stringMatching(/is not balanced/) });
    // A line written to another account.
    const moved = plant((f) => {
      const i = firstB100(f);
      f.bk[i] = put(f.bk[i], 'B100', 1364, '3000'.padEnd(15, ' '));
    });
    expectDefect(moved, { record: 'B100', field: 1364, reason: expect.stringMatching(/the books have/) });
    // A B110 dropped (and the file renumbered so that only the ledger is wrong).
    const dropped = plant((f) => {
      const i = f.bk.findIndex((x) => x.startsWith('B110'));
      f.bk.splice(i, 1);
    });
    expect(dropped.some((d) => /has B100 lines but no B110|of the trial balance has no B110/.test(d.reason))).toBe(true);
    // An opening balance that is not the books'.
    const opening = plant((f) => {
      const i = f.bk.findIndex((x) => x.startsWith('B110'));
      f.bk[i] = put(f.bk[i], 'B110', 1414, '+00000000000100');
    });
    expectDefect(opening, { record: 'B110', field: 1414, reason: expect.stringMatching(/opening balance/) });
    // Without the books, B100/B110 are unsupported; with them, 1013 must say double-entry.
    expectDefect(verifyOpenfrmt({ zip, business: { taxId: business.taxId }, documents, range }), {
      record: 'B100',
      reason: expect.stringMatching(/keeps no ledger/),
    });
    const single = plant((f) => {
      f.ini[0] = put(f.ini[0], 'A000', 1013, '0');
    });
    expectDefect(single, { record: 'A000', field: 1013, reason: expect.stringMatching(/must be 2/) });
  });

  it('the zip tree: another directory, a stray file, a BKMVDATA.TXT with LF line ends', () => {
    const r = records(zip);
    let d = verify(rezip(r.dir.replace(/\d{8}\/$/, '01010000/'), r));
    expectDefect(d, { file: 'zip', reason: expect.stringMatching(/production/) });
    d = verify(zipSync({ ...readExportZip(zip).files, 'OPENFRMT/README.TXT': new Uint8Array([65]) }));
    expectDefect(d, { file: 'zip', reason: expect.stringMatching(/outside/) });
    d = verify(rezip(r.dir, r, { bk: Buffer.from(r.bk.map((x) => x + '\n').join(''), 'latin1') }));
    expectDefect(d, { file: 'BKMVDATA.TXT', reason: expect.stringMatching(/bare LF/) });
    d = verify(rezip(r.dir, r, { bk: Buffer.from(r.bk.join('\r\n').replace('ACME', 'ACM\u00c9'), 'latin1') }));
    expectDefect(d, { file: 'BKMVDATA.TXT', reason: expect.stringMatching(/CR LF/) });
  });

  it('a byte outside ISO-8859-8 in a text', () => {
    const d = plant((f) => {
      const i = find(f, 'D110');
      f.bk[i] = put(f.bk[i], 'D110', 1275, '\u00c0'.padEnd(21, ' '));
    });
    expectDefect(d, { file: 'BKMVDATA.TXT', reason: expect.stringMatching(/not a character of the declared charset/) });
  });
});

describe('edge values export and verify', () => {
  it('largest and smallest amounts, quantities and texts; saved parties; gross with withholding; exempt', async () => {
    // Single-entry: the largest documents' sums outgrow B110 in double-entry books (refused there: test/documents/export-limits.test.ts).
    const b = await env.business(a.test, { taxId: TAX_IDS.company2, name: 'Edge בע"מ', address: 'הרצל 1', bookkeeping: 'single' });
    const party = await env.call('POST', `/v1/businesses/${b.id}/parties`, {
      key: a.test,
      body: { name: 'ל'.repeat(50), kind: 'customer', taxId: TAX_IDS.person, address: 'A'.repeat(50), phone: '0'.repeat(15) },
    });
    expect(party.status, JSON.stringify(party.body)).toBe(201);
    const bodies: Record<string, unknown>[] = [
      {
        docType: 305,
        party: { partyId: party.body.party.id },
        lines: [{ description: 'ת'.repeat(30), quantity: 99_999_999_999.9999, unitPriceExVat: 1, sku: 'S'.repeat(20), unit: 'U'.repeat(20) }],
      },
      {
        docType: 305,
        party: { name: 'x' },
        lines: [
          { description: 'min', quantity: 0.0001, unitPriceExVat: 5000 },
          { description: 'half', quantity: 0.0005, unitPriceExVat: 1000 },
        ],
      },
      { docType: 305, party: { name: 'big' }, lines: [{ description: 'big', quantity: 1, unitPriceExVat: 84_745_762_711_863 }] },
      {
        docType: 320,
        priceMode: 'gross',
        party: { name: 'g' },
        lines: [{ description: 'g', quantity: 3.3333, unitPriceExVat: 1001, lineDiscount: 7 }],
        discountAmount: 13,
        withholdingAmount: 100,
        payments: [
          {
            method: 'cheque',
            amount: 3217,
            bankCode: '9999999999',
            branchCode: '9999999999',
            accountNumber: '999999999999999',
            checkNumber: '9999999999',
            dueDate: '2099-12-31',
          },
        ],
      },
      { docType: 305, vatRateBp: 0, vatExemptionReason: 'eilat', party: { name: 'אילת' }, lines: [{ description: 'e', quantity: 2, unitPriceExVat: 500 }] },
      {
        docType: 400,
        party: { name: 'w' },
        withholdingAmount: 99_999_999_999,
        payments: [{ method: 'card', amount: 99_999_999_999_999, cardCompany: 'amex', cardName: 'C'.repeat(20), cardTxType: 'credit', dueDate: '2026-03-31' }],
      },
    ];
    for (const body of bodies) {
      const d = await env.call('POST', `/v1/businesses/${b.id}/documents`, { key: a.test, body: { documentDate: '2026-03-01', ...body } });
      if (d.status !== 201) {
        console.log('edge draft refused', d.status, JSON.stringify(d.body), JSON.stringify(body));
        continue;
      }
      const i = await env.call('POST', `/v1/businesses/${b.id}/documents/${d.body.document.id}/issue`, { key: a.test });
      if (i.status !== 201) {
        console.log('edge issue refused', i.status, JSON.stringify(i.body), JSON.stringify(body));
        continue;
      }
      const c = await env.call('POST', `/v1/businesses/${b.id}/documents/${d.body.document.id}/credit-note`, { key: a.test, body: {} });
      expect(c.status, JSON.stringify(c.body)).toBe(201);
    }
    env.clock.advance(60_000);
    const r = { from: '2026-01-01', to: '2026-12-31' };
    const ex = await env.call('POST', `/v1/businesses/${b.id}/exports/openfrmt`, { key: a.test, body: r });
    expect(ex.status, JSON.stringify(ex.body)).toBe(201);
    const v = await verifyExportThroughApi(env, a.test, b.id, { fileId: ex.body.file.id, ...r });
    expect(v.documents.filter((x) => x.status === 'issued').length).toBe(12);
    expect(v.defects.map(formatDefect)).toEqual([]);
  });
});
