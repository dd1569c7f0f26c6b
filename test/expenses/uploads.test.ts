import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { dataUri, jpeg, multipart, pdf, png, pngClaiming, webp } from './fixtures.ts';

const MAX = 200_000;
let env: TestEnv;
let a: TestAccount;
let bid: string;
const url = () => `/v1/businesses/${bid}/expenses/upload`;

beforeAll(async () => {
  env = await createTestEnv({ env: { UPLOAD_MAX_BYTES: String(MAX) } });
  a = await env.account();
  bid = (await env.business(a.test)).id;
});
afterAll(async () => env?.close());

describe('upload', () => {
  it('JSON data URI: opens a draft holding the file, served by GET /files/{id} with its mime', async () => {
    const bytes = await jpeg();
    const res = await env.call('POST', url(), { key: a.test, body: { file: dataUri('image/jpeg', bytes), name: 'קבלה.jpg' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.deduped).toBe(false);
    expect(res.body.expense).toMatchObject({ status: 'draft', source: 'upload', amountIncVat: null });
    const file = await env.call('GET', `/v1/files/${res.body.expense.receiptFileId}`, { key: a.test });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/jpeg');
    expect(Buffer.compare(file.raw, bytes)).toBe(0);
    const usage = await env.sql('sandbox', `SELECT count FROM usage_daily WHERE subject = 'acct:${a.id}' AND metric = 'expense_rows'`);
    expect(Number(usage[0].count)).toBeGreaterThanOrEqual(1);
  });

  it('multipart: PNG, WebP and PDF are accepted', async () => {
    for (const [mime, bytes, name] of [
      ['image/png', await png(), 'r.png'],
      ['image/webp', await webp(), 'r.webp'],
      ['application/pdf', pdf('multipart'), 'r.pdf'],
    ] as const) {
      const m = multipart('file', name, { mime, bytes });
      const res = await env.call('POST', url(), { key: a.test, payload: m.payload, headers: m.headers });
      expect(res.status, `${mime} ${JSON.stringify(res.body)}`).toBe(201);
      const meta = await env.sql('sandbox', `SELECT mime, name, size FROM files WHERE id = '${res.body.expense.receiptFileId}'`);
      expect(meta[0]).toMatchObject({ mime, name, size: bytes.length });
    }
  });

  it('keeps a Hebrew file name from a multipart upload', async () => {
    const m = multipart('file', 'קבלה-סופר.png', { mime: 'image/png', bytes: await png(31, 17) });
    const res = await env.call('POST', url(), { key: a.test, payload: m.payload, headers: m.headers });
    expect(res.status).toBe(201);
    const meta = await env.sql('sandbox', `SELECT name FROM files WHERE id = '${res.body.expense.receiptFileId}'`);
    expect(meta[0].name).toBe('קבלה-סופר.png');
  });

  it('the same file twice answers the existing expense (deduped) and opens no second row', async () => {
    const bytes = await jpeg(410, 300);
    const first = await env.call('POST', url(), { key: a.test, body: { file: dataUri('image/jpeg', bytes) } });
    const m = multipart('file', 'again.jpg', { mime: 'image/jpeg', bytes });
    const second = await env.call('POST', url(), { key: a.test, payload: m.payload, headers: m.headers });
    expect(second.status).toBe(201);
    expect(second.body.deduped).toBe(true);
    expect(second.body.expense.id).toBe(first.body.expense.id);
    const n = await env.sql('sandbox', `SELECT count(*)::int AS n FROM expenses WHERE receipt_file_id = '${first.body.expense.receiptFileId}'`);
    expect(n[0].n).toBe(1);
  });

  it('hostile files are refused with 400 validation and nothing is stored', async () => {
    const good = await jpeg(500, 500);
    const goodPng = await png(600, 400);
    const cases: [string, unknown, RegExp][] = [
      ['truncated JPEG', { file: dataUri('image/jpeg', good.subarray(0, Math.floor(good.length / 2))) }, /truncated|corrupt/],
      ['truncated PNG', { file: dataUri('image/png', goodPng.subarray(0, Math.floor(goodPng.length * 0.6))) }, /truncated|corrupt/],
      ['PNG declared as JPEG', { file: dataUri('image/jpeg', goodPng) }, /declared as image\/jpeg but the content is image\/png/],
      ['text declared as PDF', { file: dataUri('application/pdf', Buffer.from('hello, I am not a PDF at all')) }, /not a JPEG, PNG, WebP or PDF/],
      ['PDF header but no body', { file: dataUri('application/pdf', Buffer.from('%PDF-1.7\nnothing else here')) }, /PDF is truncated or malformed/],
      ['huge pixel dimensions', { file: dataUri('image/png', await pngClaiming(100_000, 100_000)) }, /pixels/],
      ['GIF', { file: dataUri('image/gif', Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1')) }, /not accepted/],
      ['not a data URI', { file: 'https://example.com/x.jpg' }, /data URI/],
      ['bad base64', { file: 'data:image/jpeg;base64,@@@@' }, /base64/],
      ['unknown field', { file: dataUri('image/jpeg', good), extra: 1 }, /^body\.extra/],
    ];
    const before = await env.sql('sandbox', `SELECT count(*)::int AS n FROM files`);
    for (const [what, body, message] of cases) {
      const res = await env.call('POST', url(), { key: a.test, body });
      expect(res.status, what).toBe(400);
      expect(res.body.reason, what).toBe('validation');
      expect(res.body.error, what).toMatch(message);
    }
    const m = multipart('file', 'fake.pdf', { mime: 'application/pdf', bytes: Buffer.from('MZ\x90\x00 an executable') });
    const res = await env.call('POST', url(), { key: a.test, payload: m.payload, headers: m.headers });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^file: /);
    const wrongPart = multipart('receipt', 'r.jpg', { mime: 'image/jpeg', bytes: good });
    expect((await env.call('POST', url(), { key: a.test, payload: wrongPart.payload, headers: wrongPart.headers })).status).toBe(400);
    const after = await env.sql('sandbox', `SELECT count(*)::int AS n FROM files`);
    expect(after[0].n).toBe(before[0].n);
  });

  it('beyond UPLOAD_MAX_BYTES answers 413 too_large (JSON and multipart)', async () => {
    const big = Buffer.concat([pdf('big').subarray(0, 20), Buffer.alloc(MAX + 10, 0x20), Buffer.from('\n1 0 obj\n<<>>\nendobj\n%%EOF\n')]);
    const json = await env.call('POST', url(), { key: a.test, body: { file: dataUri('application/pdf', big) } });
    expect(json.status).toBe(413);
    expect(json.body.reason).toBe('too_large');
    const m = multipart('file', 'big.pdf', { mime: 'application/pdf', bytes: big });
    const res = await env.call('POST', url(), { key: a.test, payload: m.payload, headers: m.headers });
    expect(res.status).toBe(413);
    expect(res.body.reason).toBe('too_large');
    // Just under the limit passes: the route's own bodyLimit admits the base64 envelope of a full-size file.
    const fits = Buffer.concat([pdf('fits').subarray(0, 20), Buffer.alloc(MAX - 200, 0x20), Buffer.from('\n1 0 obj\n<<>>\nendobj\n%%EOF\n')]);
    const ok = await env.call('POST', url(), { key: a.test, body: { file: dataUri('application/pdf', fits) } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it('pending or suspended business: 403 approval_required; deactivated: 403 forbidden', async () => {
    const b = await env.business(a.test);
    await env.sql('sandbox', `UPDATE businesses SET approval_status = 'pending' WHERE id = '${b.id}'`);
    const res = await env.call('POST', `/v1/businesses/${b.id}/expenses/upload`, { key: a.test, body: { file: dataUri('image/jpeg', await jpeg(100, 100)) } });
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('approval_required');
    await env.sql('sandbox', `UPDATE businesses SET approval_status = 'approved' WHERE id = '${b.id}'`);
    await env.call('POST', `/v1/businesses/${b.id}/deactivate`, { key: a.test });
    const off = await env.call('POST', `/v1/businesses/${b.id}/expenses/upload`, { key: a.test, body: { file: dataUri('image/jpeg', await jpeg(100, 100)) } });
    expect(off.status).toBe(403);
    expect(off.body.reason).toBe('forbidden');
  });

  it('uploads count against the daily row limit', async () => {
    const b = (await env.business(a.test)).id;
    await env.sql('sandbox', `INSERT INTO usage_daily(day, subject, metric, count) VALUES ('2026-03-01', 'biz:${b}', 'expense_rows_opened', 300)`);
    const res = await env.call('POST', `/v1/businesses/${b}/expenses/upload`, { key: a.test, body: { file: dataUri('image/jpeg', await jpeg(101, 100)) } });
    expect(res.status).toBe(429);
    expect(res.body.reason).toBe('limit_reached');
    expect((await env.sql('sandbox', `SELECT count(*)::int AS n FROM files WHERE business_id = '${b}'`))[0].n).toBe(0);
  });

  it('a key without the expenses scope is refused', async () => {
    const k = await a.mint({ mode: 'test', scopes: ['documents'] });
    const res = await env.call('POST', url(), { key: k.secret, body: { file: dataUri('image/jpeg', await jpeg()) } });
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('forbidden');
  });
});
