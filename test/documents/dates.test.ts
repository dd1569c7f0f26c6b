/**
 * Every date field the API accepts, as one class: documents (documentDate, valueDate, a payment's
 * dueDate, on create and on patch; the list's from/to), expenses (supplierDocDate on create and
 * patch; the list's from/to), the OPENFRMT export range and the report ranges. Each refuses what is
 * not a real calendar date or lies outside 2000-01-01..2099-12-31 with 400 `validation` naming the
 * field, and takes a leap day. The OpenAPI document is walked so a date field added later without
 * the shared IsoDate is caught too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;
let docDraftId: string;
let receiptDraftId: string;
let expenseDraftId: string;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  bid = (await env.business(a.test)).id;
  docDraftId = (await post(`/v1/businesses/${bid}/documents`, { docType: 305, lines: [line] })).body.document.id;
  receiptDraftId = (await post(`/v1/businesses/${bid}/documents`, { docType: 400, payments: [cheque('2026-04-01')] })).body.document.id;
  expenseDraftId = (await post(`/v1/businesses/${bid}/expenses`, { supplier: { name: 'ספק' } })).body.expense.id;
});
afterAll(async () => env?.close());

const line = { description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000 };
const cheque = (dueDate: string) => ({
  method: 'cheque',
  amount: 5_000,
  bankCode: '12',
  branchCode: '345',
  accountNumber: '678901',
  checkNumber: '1001',
  dueDate,
});
const post = (url: string, body: unknown) => {
  // One OPENFRMT production per business per minute (a second answers 409): each export its own minute.
  if (url.includes('/exports/')) env.clock.advance(60_000);
  return env.call('POST', url, { key: a.test, body });
};
const patch = (url: string, body: unknown) => env.call('PATCH', url, { key: a.test, body });
const get = (url: string) => env.call('GET', url, { key: a.test });

/** Where a date goes, and the field path the 400 must name. */
interface DateField {
  name: string;
  field: string;
  send: (date: string) => Promise<{ status: number; body: any }>;
}

const FIELDS: DateField[] = [
  {
    name: 'create document: documentDate',
    field: 'body.documentDate',
    send: (d) => post(`/v1/businesses/${bid}/documents`, { docType: 305, lines: [line], documentDate: d }),
  },
  {
    name: 'create document: valueDate',
    field: 'body.valueDate',
    send: (d) => post(`/v1/businesses/${bid}/documents`, { docType: 305, lines: [line], valueDate: d }),
  },
  {
    name: 'create document: cheque dueDate',
    field: 'body.payments[1].dueDate',
    send: (d) => post(`/v1/businesses/${bid}/documents`, { docType: 400, payments: [cheque('2026-04-01'), cheque(d)] }),
  },
  {
    name: 'patch document: documentDate',
    field: 'body.documentDate',
    send: (d) => patch(`/v1/businesses/${bid}/documents/${docDraftId}`, { documentDate: d }),
  },
  { name: 'patch document: valueDate', field: 'body.valueDate', send: (d) => patch(`/v1/businesses/${bid}/documents/${docDraftId}`, { valueDate: d }) },
  {
    name: 'patch document: cheque dueDate',
    field: 'body.payments[0].dueDate',
    send: (d) => patch(`/v1/businesses/${bid}/documents/${receiptDraftId}`, { payments: [cheque(d)] }),
  },
  { name: 'list documents: from', field: 'querystring.from', send: (d) => get(`/v1/businesses/${bid}/documents?from=${d}`) },
  { name: 'list documents: to', field: 'querystring.to', send: (d) => get(`/v1/businesses/${bid}/documents?to=${d}`) },
  { name: 'create expense: supplierDocDate', field: 'body.supplierDocDate', send: (d) => post(`/v1/businesses/${bid}/expenses`, { supplierDocDate: d }) },
  {
    name: 'patch expense: supplierDocDate',
    field: 'body.supplierDocDate',
    send: (d) => patch(`/v1/businesses/${bid}/expenses/${expenseDraftId}`, { supplierDocDate: d }),
  },
  { name: 'list expenses: from', field: 'querystring.from', send: (d) => get(`/v1/businesses/${bid}/expenses?from=${d}`) },
  { name: 'list expenses: to', field: 'querystring.to', send: (d) => get(`/v1/businesses/${bid}/expenses?to=${d}`) },
  { name: 'OPENFRMT export: from', field: 'body.from', send: (d) => post(`/v1/businesses/${bid}/exports/openfrmt`, { from: d, to: '2099-12-31' }) },
  { name: 'OPENFRMT export: to', field: 'body.to', send: (d) => post(`/v1/businesses/${bid}/exports/openfrmt`, { from: '2000-01-01', to: d }) },
  { name: 'summary report: from', field: 'querystring.from', send: (d) => get(`/v1/businesses/${bid}/reports/summary?from=${d}&to=2099-12-31`) },
  { name: 'summary report: to', field: 'querystring.to', send: (d) => get(`/v1/businesses/${bid}/reports/summary?from=2000-01-01&to=${d}`) },
  { name: 'VAT report: from', field: 'querystring.from', send: (d) => get(`/v1/businesses/${bid}/reports/vat?from=${d}&to=2099-12-31`) },
  { name: 'VAT report: to', field: 'querystring.to', send: (d) => get(`/v1/businesses/${bid}/reports/vat?from=2000-01-01&to=${d}`) },
];

/** Not calendar dates, out of the range, or not of the shape. */
const REFUSED = [
  '2025-02-30',
  '2025-13-01',
  '2025-00-10',
  '2023-02-29',
  '2025-04-31',
  '2100-02-29',
  '1999-12-31',
  '2100-01-01',
  '0001-01-01',
  '9999-12-31',
  '2025-2-1',
  '20250201',
];
/** A leap day, and both ends of the range. */
const ACCEPTED = ['2024-02-29', '2000-01-01', '2099-12-31'];

describe.each(FIELDS)('$name', ({ field, send }) => {
  it.each(REFUSED)(`refuses %s with 400 validation naming ${field}`, async (d) => {
    const r = await send(d);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.reason).toBe('validation');
    expect(r.body.error.startsWith(`${field}: `), r.body.error).toBe(true);
  });
  it.each(ACCEPTED)('accepts %s', async (d) => {
    const r = await send(d);
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  });
});

describe('dates stored and answered', () => {
  it('a leap-day document, value and cheque date are kept as given', async () => {
    const r = await post(`/v1/businesses/${bid}/documents`, {
      docType: 320,
      lines: [line],
      payments: [{ ...cheque('2028-02-29'), amount: 11_800 }],
      documentDate: '2024-02-29',
      valueDate: '2024-02-29',
    });
    expect(r.status).toBe(201);
    expect(r.body.document).toMatchObject({ documentDate: '2024-02-29', valueDate: '2024-02-29', payments: [{ dueDate: '2028-02-29' }] });
  });
  it('a cheque with no due date is still fine (dueDate is optional and nullable)', async () => {
    const r = await post(`/v1/businesses/${bid}/documents`, { docType: 400, payments: [{ method: 'cash', amount: 100, dueDate: null }] });
    expect(r.status).toBe(201);
  });
});

describe('ranges: from after to is refused the same way for the export and both reports', () => {
  it.each([
    [
      'OPENFRMT export',
      () => post(`/v1/businesses/${bid}/exports/openfrmt`, { from: '2026-03-02', to: '2026-03-01' }),
      'body.to: must not be before body.from',
    ],
    ['summary report', () => get(`/v1/businesses/${bid}/reports/summary?from=2026-03-02&to=2026-03-01`), 'querystring.to: must not be before querystring.from'],
    ['VAT report', () => get(`/v1/businesses/${bid}/reports/vat?from=2026-03-02&to=2026-03-01`), 'querystring.to: must not be before querystring.from'],
  ])('%s', async (_name, send, message) => {
    const r = await send();
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: message, reason: 'validation', requestId: expect.stringMatching(/^req_/) });
  });
  it('a one-day range is fine', async () => {
    expect((await get(`/v1/businesses/${bid}/reports/vat?from=2024-02-29&to=2024-02-29`)).status).toBe(200);
    expect((await post(`/v1/businesses/${bid}/exports/openfrmt`, { from: '2024-02-29', to: '2024-02-29' })).status).toBe(201);
  });
});

describe('the OpenAPI document', () => {
  interface Found {
    where: string;
    schema: Record<string, any>;
  }
  /** Every string field of every request: body properties (nested) and query/path parameters. */
  async function requestFields(): Promise<Found[]> {
    const doc = (await get('/v1/openapi.json')).body;
    const found: Found[] = [];
    const walk = (s: any, where: string, seen: Set<string>) => {
      if (!s || typeof s !== 'object') return;
      if (s.$ref) {
        const name = String(s.$ref).split('/').pop()!;
        if (seen.has(name)) return;
        return walk(doc.components.schemas[name], where, new Set([...seen, name]));
      }
      if (s.type === 'string') found.push({ where, schema: s });
      for (const k of ['anyOf', 'oneOf', 'allOf']) for (const x of s[k] ?? []) walk(x, where, seen);
      for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${where}.${k}`, seen);
      if (s.items) walk(s.items, `${where}[]`, seen);
    };
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const route = `${method.toUpperCase()} ${path}`;
        for (const p of op.parameters ?? []) walk(p.schema, `${route} ${p.in === 'query' ? 'querystring' : p.in}.${p.name}`, new Set());
        const body = op.requestBody?.content?.['application/json']?.schema;
        if (body) walk(body, `${route} body`, new Set());
      }
    }
    return found;
  }

  it('shows every date field as a date with the documented range', async () => {
    const fields = await requestFields();
    const dates = fields.filter((f) => f.schema.format === 'date');
    expect(dates.map((f) => f.where)).toEqual(
      expect.arrayContaining([
        'POST /v1/businesses/{bid}/documents body.documentDate',
        'POST /v1/businesses/{bid}/documents body.valueDate',
        'POST /v1/businesses/{bid}/documents body.payments[].dueDate',
        'PATCH /v1/businesses/{bid}/documents/{id} body.documentDate',
        'PATCH /v1/businesses/{bid}/documents/{id} body.valueDate',
        'PATCH /v1/businesses/{bid}/documents/{id} body.payments[].dueDate',
        'GET /v1/businesses/{bid}/documents querystring.from',
        'GET /v1/businesses/{bid}/documents querystring.to',
        'POST /v1/businesses/{bid}/expenses body.supplierDocDate',
        'PATCH /v1/businesses/{bid}/expenses/{id} body.supplierDocDate',
        'GET /v1/businesses/{bid}/expenses querystring.from',
        'GET /v1/businesses/{bid}/expenses querystring.to',
        'POST /v1/businesses/{bid}/exports/openfrmt body.from',
        'POST /v1/businesses/{bid}/exports/openfrmt body.to',
        'GET /v1/businesses/{bid}/reports/summary querystring.from',
        'GET /v1/businesses/{bid}/reports/summary querystring.to',
        'GET /v1/businesses/{bid}/reports/vat querystring.from',
        'GET /v1/businesses/{bid}/reports/vat querystring.to',
      ]),
    );
    // The range (ajv-formats' formatMinimum/formatMaximum) as OpenAPI extensions: not OpenAPI keywords (platform/http/openapi.ts).
    for (const f of dates)
      expect(f.schema, f.where).toMatchObject({ type: 'string', format: 'date', 'x-formatMinimum': '2000-01-01', 'x-formatMaximum': '2099-12-31' });
    // Bodies carry the description on the schema; parameters carry it on the parameter.
    expect(dates.find((f) => f.where.endsWith('body.documentDate'))!.schema.description).toBe(
      'YYYY-MM-DD, a real calendar date from 2000-01-01 through 2099-12-31',
    );
  });

  it('has no date field outside the class: a field named like a date is a date or a date-time', async () => {
    const fields = await requestFields();
    const dateLike = fields.filter((f) => /(date|Date|^.*\.(from|to|since|until|day))$/.test(f.where) && f.schema.format !== 'email');
    expect(dateLike.length).toBeGreaterThanOrEqual(18);
    const strays = dateLike.filter((f) => f.schema.format !== 'date' && f.schema.format !== 'date-time').map((f) => f.where);
    expect(strays).toEqual([]);
  });
});
