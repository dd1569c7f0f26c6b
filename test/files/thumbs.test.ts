import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { dataUri, jpeg, pdf, png, webp } from '../expenses/fixtures.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  bid = (await env.business(a.test)).id;
});
afterAll(async () => env?.close());

async function upload(mime: string, bytes: Buffer, b = bid, key = a.test): Promise<string> {
  const res = await env.call('POST', `/v1/businesses/${b}/expenses/upload`, { key, body: { file: dataUri(mime, bytes) } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.expense.receiptFileId;
}

describe('POST /businesses/{bid}/files/thumbs', () => {
  it('answers small JPEG data URIs for images; PDFs, unknown ids and other tenants are absent', async () => {
    const big = await upload('image/jpeg', await jpeg(3000, 2000));
    const small = await upload('image/png', await png(100, 50));
    const w = await upload('image/webp', await webp());
    const doc = await upload('application/pdf', pdf('thumb'));
    const other = await env.account();
    const otherBid = (await env.business(other.test)).id;
    const foreign = await upload('image/jpeg', await jpeg(90, 90), otherBid, other.test);

    const res = await env.call('POST', `/v1/businesses/${bid}/files/thumbs`, {
      key: a.test,
      body: { ids: [big, small, w, doc, foreign, 'file_unknown', big] },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.thumbs).sort()).toEqual([big, small, w].sort());
    for (const uri of Object.values(res.body.thumbs) as string[]) {
      expect(uri.startsWith('data:image/jpeg;base64,')).toBe(true);
      const meta = await sharp(Buffer.from(uri.split(',')[1], 'base64')).metadata();
      expect(meta.format).toBe('jpeg');
      expect(Math.max(meta.width, meta.height)).toBeLessThanOrEqual(160);
    }
    const bigMeta = await sharp(Buffer.from(res.body.thumbs[big].split(',')[1], 'base64')).metadata();
    expect([bigMeta.width, bigMeta.height]).toEqual([160, 107]);
    const smallMeta = await sharp(Buffer.from(res.body.thumbs[small].split(',')[1], 'base64')).metadata();
    expect([smallMeta.width, smallMeta.height]).toEqual([100, 50]);
  });

  it('a corrupt stored image is simply absent', async () => {
    const good = await jpeg(50, 50);
    // Stored as it came (its sha256 is its own): undecodable, not altered.
    const truncated = good.subarray(0, 40);
    await env.sql(
      'sandbox',
      `INSERT INTO files(id, business_id, sha256, mime, size, name, content, created_at)
       VALUES ('file_corrupt', '${bid}', '${createHash('sha256').update(truncated).digest('hex')}', 'image/jpeg', 40, 'c.jpg', '\\x${truncated.toString('hex')}'::bytea, now())`,
    );
    const res = await env.call('POST', `/v1/businesses/${bid}/files/thumbs`, { key: a.test, body: { ids: ['file_corrupt'] } });
    expect(res.status).toBe(200);
    expect(res.body.thumbs).toEqual({});
  });

  it('validates the batch: 1 to 60 ids, no unknown fields; needs the export scope; other business 404', async () => {
    const ids = Array.from({ length: 61 }, (_, i) => `file_${i}`);
    const tooMany = await env.call('POST', `/v1/businesses/${bid}/files/thumbs`, { key: a.test, body: { ids } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatch(/^body\.ids/);
    expect((await env.call('POST', `/v1/businesses/${bid}/files/thumbs`, { key: a.test, body: { ids: ids.slice(0, 60) } })).status).toBe(200);
    expect((await env.call('POST', `/v1/businesses/${bid}/files/thumbs`, { key: a.test, body: { ids: [] } })).status).toBe(400);
    const extra = await env.call('POST', `/v1/businesses/${bid}/files/thumbs`, { key: a.test, body: { ids: ['x'], size: 500 } });
    expect(extra.status).toBe(400);
    expect(extra.body.error).toMatch(/^body\.size/);
    const k = await a.mint({ mode: 'test', scopes: ['expenses'] });
    expect((await env.call('POST', `/v1/businesses/${bid}/files/thumbs`, { key: k.secret, body: { ids: ['x'] } })).status).toBe(403);
    const other = await env.account();
    expect((await env.call('POST', `/v1/businesses/${bid}/files/thumbs`, { key: other.test, body: { ids: ['x'] } })).status).toBe(404);
  });

  it('stays available on a deactivated business (a read)', async () => {
    const b = (await env.business(a.test)).id;
    const f = await upload('image/jpeg', await jpeg(60, 60), b);
    await env.call('POST', `/v1/businesses/${b}/deactivate`, { key: a.test });
    const res = await env.call('POST', `/v1/businesses/${b}/files/thumbs`, { key: a.test, body: { ids: [f] } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.thumbs)).toEqual([f]);
  });
});

describe('GET /files/{id}', () => {
  it("serves the bytes with the stored mime, for the account's own businesses only", async () => {
    const bytes = pdf('download');
    const id = await upload('application/pdf', bytes);
    const res = await env.call('GET', `/v1/files/${id}`, { key: a.test });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(Buffer.compare(res.raw, bytes)).toBe(0);
    const other = await env.account();
    const foreign = await env.call('GET', `/v1/files/${id}`, { key: other.test });
    expect(foreign.status).toBe(404);
    expect(foreign.body.reason).toBe('not_found');
    expect((await env.call('GET', `/v1/files/file_nope`, { key: a.test })).status).toBe(404);
    // The live database does not hold sandbox files.
    expect((await env.call('GET', `/v1/files/${id}`, { key: a.live })).status).toBe(404);
  });
});
