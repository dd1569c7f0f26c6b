import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { dataUri, jpeg, multipart, pdf } from './fixtures.ts';
import { FakeChatCompletions } from './fake-openai.ts';

let env: TestEnv;
let fake: FakeChatCompletions;
let a: TestAccount;
let ocrKey: string;
let bid: string;
const url = (b = bid) => `/v1/businesses/${b}/expenses/scan`;

const extraction = {
  supplierName: 'סופר פארם בע"מ',
  supplierTaxId: TAX_IDS.company2,
  documentType: 'tax_invoice_receipt',
  documentNumber: '004512',
  documentDate: '27/02/2026',
  amountExVat: 100,
  vatAmount: 18,
  amountIncVat: 118,
  allocationNumber: null,
};

beforeAll(async () => {
  fake = await FakeChatCompletions.start();
  env = await createTestEnv({ env: { OCR_BASE_URL: fake.baseUrl, OCR_API_KEY: 'sk-test-123', OCR_MODEL: 'vision-test-1', OCR_TIMEOUT_MS: '300' } });
  a = await env.account({ ocr: true });
  ocrKey = (await a.mint({ mode: 'test', scopes: ['businesses', 'expenses', 'ocr', 'export'] })).secret;
  bid = (await env.business(ocrKey)).id;
});
afterAll(async () => {
  await env?.close();
  await fake?.close();
});

const countRows = async (b = bid) => (await env.sql('sandbox', `SELECT count(*)::int AS n FROM expenses WHERE business_id = '${b}'`))[0].n;
const scansCounted = async () =>
  Number((await env.sql('sandbox', `SELECT count FROM usage_daily WHERE subject = 'acct:${a.id}' AND metric = 'ocr_scans'`))[0]?.count ?? 0);

describe('scan', () => {
  it('sends the image to the chat-completions API, prefills the draft and keeps the raw extraction', async () => {
    fake.answer({ kind: 'json', content: extraction });
    const bytes = await jpeg(320, 480);
    const res = await env.call('POST', url(), { key: ocrKey, body: { file: dataUri('image/jpeg', bytes) } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.expense).toMatchObject({
      status: 'draft',
      source: 'scan',
      supplierName: 'סופר פארם בע"מ',
      supplierTaxId: TAX_IDS.company2,
      supplierDocType: 'tax_invoice_receipt',
      supplierDocNumber: '004512',
      supplierDocDate: '2026-02-27',
      amountExVat: 10000,
      vatAmount: 1800,
      amountIncVat: 11800,
      allocationNumber: null,
      ocrExtraction: { model: 'vision-test-1', result: extraction },
    });
    const req = fake.requests.at(-1)!;
    expect(req.headers.authorization).toBe('Bearer sk-test-123');
    expect(req.body.model).toBe('vision-test-1');
    expect(req.body.response_format.type).toBe('json_schema');
    expect(req.body.response_format.json_schema.strict).toBe(true);
    expect(Object.keys(req.body.response_format.json_schema.schema.properties)).toEqual(
      expect.arrayContaining([
        'supplierName',
        'supplierTaxId',
        'documentType',
        'documentNumber',
        'documentDate',
        'amountExVat',
        'vatAmount',
        'amountIncVat',
        'allocationNumber',
      ]),
    );
    const image = req.body.messages[1].content.find((p: any) => p.type === 'image_url');
    expect(image.image_url.url).toBe(dataUri('image/jpeg', bytes));
    expect(await scansCounted()).toBe(1);
    const read = await env.call('GET', `/v1/businesses/${bid}/expenses/${res.body.expense.id}`, { key: ocrKey });
    expect(read.body.expense.ocrExtraction.result).toEqual(extraction);
  });

  it('sends a PDF as a file part (multipart upload)', async () => {
    fake.answer({ kind: 'json', content: { ...extraction, documentNumber: 'PDF-1', amountExVat: null, vatAmount: null, amountIncVat: '₪1,234.50' } });
    const bytes = pdf('scan me');
    const m = multipart('file', 'invoice.pdf', { mime: 'application/pdf', bytes });
    const res = await env.call('POST', url(), { key: ocrKey, payload: m.payload, headers: m.headers });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.expense).toMatchObject({ supplierDocNumber: 'PDF-1', amountIncVat: 123450, amountExVat: null, vatAmount: null });
    const part = fake.requests.at(-1)!.body.messages[1].content.find((p: any) => p.type === 'file');
    expect(part.file).toEqual({ filename: 'invoice.pdf', file_data: dataUri('application/pdf', bytes) });
  });

  it('the same file again points to the existing expense without a second OCR call', async () => {
    fake.answer({ kind: 'json', content: extraction });
    const bytes = await jpeg(330, 480);
    const first = await env.call('POST', url(), { key: ocrKey, body: { file: dataUri('image/jpeg', bytes) } });
    const calls = fake.requests.length;
    const again = await env.call('POST', url(), { key: ocrKey, body: { file: dataUri('image/jpeg', bytes) } });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ deduped: true, expense: { id: first.body.expense.id } });
    expect(fake.requests.length).toBe(calls);
    const upload = await env.call('POST', `/v1/businesses/${bid}/expenses/upload`, { key: ocrKey, body: { file: dataUri('image/jpeg', bytes) } });
    expect(upload.body).toMatchObject({ deduped: true, expense: { id: first.body.expense.id } });
  });

  it('upstream failures answer 502 provider, write nothing, and the scan is still counted', async () => {
    const answers = [
      { kind: 'status', status: 500 },
      { kind: 'status', status: 429 },
      { kind: 'garbage' },
      { kind: 'raw-content', content: 'Sorry, I cannot read this.' },
      { kind: 'raw-content', content: '[1,2,3]' },
      { kind: 'hang' },
    ] as const;
    for (const [i, answer] of answers.entries()) {
      const rows = await countRows();
      const files = (await env.sql('sandbox', `SELECT count(*)::int AS n FROM files WHERE business_id = '${bid}'`))[0].n;
      const counted = await scansCounted();
      fake.answer(answer);
      const res = await env.call('POST', url(), { key: ocrKey, body: { file: dataUri('image/jpeg', await jpeg(200 + i, 200)) } });
      expect(res.status, answer.kind).toBe(502);
      expect(res.body.reason).toBe('provider');
      expect(res.body.error).not.toMatch(/sk-test|stack|at /);
      expect(await countRows()).toBe(rows);
      expect((await env.sql('sandbox', `SELECT count(*)::int AS n FROM files WHERE business_id = '${bid}'`))[0].n).toBe(files);
      expect(await scansCounted()).toBe(counted + 1);
    }
  });

  it('a model answer with contradicting amounts keeps only the total; an invalid tax id is dropped', async () => {
    fake.answer({
      kind: 'json',
      content: { ...extraction, amountExVat: 50, vatAmount: 18, amountIncVat: 118, supplierTaxId: '123456789', documentDate: '31/02/2026' },
    });
    const res = await env.call('POST', url(), { key: ocrKey, body: { file: dataUri('image/jpeg', await jpeg(222, 333)) } });
    expect(res.status).toBe(201);
    expect(res.body.expense).toMatchObject({ amountExVat: null, vatAmount: null, amountIncVat: 11800, supplierTaxId: null, supplierDocDate: null });
  });

  it('needs the ocr scope; 200 scans per key per day, then 429 quota_exceeded before any call', async () => {
    const plain = await env.call('POST', url(), { key: a.test, body: { file: dataUri('image/jpeg', await jpeg()) } });
    expect(plain.status).toBe(403);
    expect(plain.body.reason).toBe('forbidden');
    const k = await a.mint({ mode: 'test', scopes: ['expenses', 'ocr'] });
    await env.sql('sandbox', `INSERT INTO usage_daily(day, subject, metric, count) VALUES ('2026-03-01', 'key:${k.id}', 'ocr_scans', 200)`);
    const calls = fake.requests.length;
    const res = await env.call('POST', url(), { key: k.secret, body: { file: dataUri('image/jpeg', await jpeg(77, 77)) } });
    expect(res.status).toBe(429);
    expect(res.body.reason).toBe('quota_exceeded');
    expect(fake.requests.length).toBe(calls);
  });

  it('GET /usage reports the scans and expense rows of the day', async () => {
    const res = await env.call('GET', '/v1/usage?days=1', { key: a.test });
    expect(res.status).toBe(200);
    const today = JSON.stringify(res.body);
    expect(today).toMatch(/"ocrScans":\d+/);
    const day = Object.values(res.body).find(Array.isArray) as any[];
    expect(day[0].ocrScans).toBe(await scansCounted());
    expect(day[0].expenseRows).toBeGreaterThanOrEqual(4);
  });

  it('row limits and approval are checked before the billed call', async () => {
    const b2 = (await env.business(ocrKey)).id;
    await env.sql('sandbox', `INSERT INTO usage_daily(day, subject, metric, count) VALUES ('2026-03-01', 'biz:${b2}', 'expense_rows_opened', 300)`);
    const calls = fake.requests.length;
    const limited = await env.call('POST', url(b2), { key: ocrKey, body: { file: dataUri('image/jpeg', await jpeg(78, 78)) } });
    expect(limited.status).toBe(429);
    expect(limited.body.reason).toBe('limit_reached');
    const b3 = (await env.business(ocrKey)).id;
    await env.sql('sandbox', `UPDATE businesses SET approval_status = 'suspended' WHERE id = '${b3}'`);
    const suspended = await env.call('POST', url(b3), { key: ocrKey, body: { file: dataUri('image/jpeg', await jpeg(79, 79)) } });
    expect(suspended.status).toBe(403);
    expect(suspended.body.reason).toBe('approval_required');
    expect(fake.requests.length).toBe(calls);
  });
});

describe('scan without configuration', () => {
  it('answers 503 unconfigured and counts nothing', async () => {
    const bare = await createTestEnv();
    try {
      const acct = await bare.account({ ocr: true });
      const k = await acct.mint({ mode: 'test', scopes: ['businesses', 'expenses', 'ocr'] });
      const b = await bare.business(k.secret);
      const res = await bare.call('POST', `/v1/businesses/${b.id}/expenses/scan`, { key: k.secret, body: { file: dataUri('image/jpeg', await jpeg()) } });
      expect(res.status).toBe(503);
      expect(res.body.reason).toBe('unconfigured');
      expect(await bare.sql('sandbox', `SELECT * FROM expenses`)).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});
