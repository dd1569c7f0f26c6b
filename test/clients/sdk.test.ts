import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pinkas, PinkasError, modeOfKey, verifyWebhook } from '../../packages/sdk/src/index.ts';
import { staleFiles } from '../../packages/sdk/scripts/generate.ts';
import { signWebhook } from '../../src/webhooks/signature.ts';
import { fakeServer, type Answer } from './fake-server.ts';
import { startLiveApi, type LiveApi } from './live-api.ts';

// Issue 18 part 3: @pinkas/sdk (packages/sdk) against the live service, its retries and automatic
// Idempotency-Keys against a scripted fake, its webhook verifier against the service's signer, and
// its committed generated types against the current document.

const BUSINESS = { name: 'עסק לדוגמה בע"מ', taxId: '516179157', dealerType: 'company' } as const;
const RECEIPT = {
  docType: 320 as const,
  lines: [{ description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000 }],
  payments: [{ method: 'cash' as const, amount: 11_800 }],
};
const noWait = () => Promise.resolve();
const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const SDK = path.join(ROOT, 'packages/sdk');

describe('the SDK against the live service', () => {
  let live: LiveApi;
  beforeAll(async () => (live = await startLiveApi()), 60_000);
  afterAll(async () => live?.close());

  it('runs the lifecycle: business, party, invoice receipt, its PDF, a credit note, every document, an export and its zip', async () => {
    const pinkas = new Pinkas({ key: live.key, baseUrl: live.baseUrl });
    expect(pinkas.mode).toBe('sandbox');
    const { business } = await pinkas.post('/v1/businesses', { body: BUSINESS });
    const bid = business.id;
    const { party } = await pinkas.post('/v1/businesses/{bid}/parties', { params: { path: { bid } }, body: { name: 'לקוח', taxId: '123456782' } });
    const { document: draft } = await pinkas.post('/v1/businesses/{bid}/documents', {
      params: { path: { bid } },
      body: { ...RECEIPT, party: { partyId: party.id } },
    });
    const { document: issued } = await pinkas.post('/v1/businesses/{bid}/documents/{id}/issue', { params: { path: { bid, id: draft.id } }, body: {} });
    expect(issued.docNumber).toBeGreaterThan(0);

    const pdf = await pinkas.documentPdf(bid, issued.id, { sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 100))) });
    expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');

    const { document: credit } = await pinkas.post('/v1/businesses/{bid}/documents/{id}/credit-note', {
      params: { path: { bid, id: issued.id } },
      body: { reason: 'החזרה' },
    });
    expect(credit.docType).toBe(330);

    const ids: string[] = [];
    for await (const d of pinkas.all('/v1/businesses/{bid}/documents', 'documents', { params: { path: { bid }, query: { take: 1 } } })) ids.push(d.id);
    expect(ids.sort()).toEqual([issued.id, credit.id].sort());

    const run = await pinkas.post('/v1/businesses/{bid}/exports/openfrmt', { params: { path: { bid } }, body: { from: '2026-01-01', to: '2026-12-31' } });
    const zip = await pinkas.file(run.file.id);
    expect(Buffer.from(zip.subarray(0, 2)).toString('latin1')).toBe('PK');
  }, 60_000);

  it('the lifecycle of packages/sdk/README.md type-checks strictly and runs as written', async () => {
    const readme = readFileSync(path.join(SDK, 'README.md'), 'utf8');
    const program = /```ts\n(import \{ Pinkas \}[\s\S]*?)```/
      .exec(readme)![1]
      .replace("'@pinkas/sdk'", JSON.stringify(path.join(SDK, 'src/index.ts')))
      .replace('process.env.PINKAS_KEY!', JSON.stringify(live.key))
      .replace("'http://localhost:3000'", JSON.stringify(live.baseUrl));
    const dir = mkdtempSync(path.join(tmpdir(), 'pinkas-sdk-readme-'));
    const file = path.join(dir, 'readme.mts'); // an ES module, as the README's top-level await needs
    writeFileSync(file, `${program}\nexport const outcome = { pdf, zip };\n`);
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const flags = [
      '--strict',
      '--noEmit',
      '--skipLibCheck',
      '--target',
      'ES2022',
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--allowImportingTsExtensions',
      '--types',
      'node',
      '--typeRoots',
      path.join(ROOT, 'node_modules/@types'),
    ];
    const checked = await run(process.execPath, [tsc, ...flags, file], { cwd: ROOT }).then(
      () => '',
      (e: { stdout?: string }) => e.stdout ?? String(e),
    );
    expect(checked).toBe('');
    const { outcome } = (await import(file)) as { outcome: { pdf: Uint8Array; zip: Uint8Array } };
    rmSync(dir, { recursive: true, force: true });
    expect(Buffer.from(outcome.pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    expect(Buffer.from(outcome.zip.subarray(0, 2)).toString('latin1')).toBe('PK');
  }, 60_000);

  it('throws PinkasError with the reason and the request id of the answer', async () => {
    const pinkas = new Pinkas({ key: live.key, baseUrl: live.baseUrl });
    const err = await pinkas.get('/v1/businesses/{bid}', { params: { path: { bid: 'biz_nope' } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PinkasError);
    const e = err as PinkasError;
    expect([e.status, e.reason]).toEqual([404, 'not_found']);
    expect(e.requestId).toMatch(/^req_/);
    expect(e.message).toContain(e.requestId!);
  });

  it('a caller’s own Idempotency-Key: the same body answers the same business again, another body a 409 conflict', async () => {
    const pinkas = new Pinkas({ key: live.key, baseUrl: live.baseUrl });
    const header = { 'idempotency-key': 'sdk-own-key-1' };
    const body = { ...BUSINESS, name: 'עסק אחד' };
    const first = await pinkas.post('/v1/businesses', { params: { header }, body });
    const again = await pinkas.raw.POST('/v1/businesses', { params: { header }, body });
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data?.business.id).toBe(first.business.id);
    const other = await pinkas.post('/v1/businesses', { params: { header }, body: { ...body, name: 'עסק אחר' } }).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(PinkasError);
    expect([(other as PinkasError).status, (other as PinkasError).reason]).toEqual([409, 'conflict']);
  });

  it('a create whose answer was lost is retried with the same Idempotency-Key: one business, not two', async () => {
    const { secret } = await (await live.env.account()).mint({ mode: 'test' });
    let lost = 0;
    const pinkas = new Pinkas({
      key: secret,
      baseUrl: live.baseUrl,
      retry: { sleep: noWait },
      // The first create reaches the service, then its answer is lost on the way back.
      fetch: async (request) => {
        const response = await fetch(request);
        if (request.method === 'POST' && lost++ === 0) throw new TypeError('fetch failed: socket hang up');
        return response;
      },
    });
    const { business } = await pinkas.post('/v1/businesses', { body: BUSINESS });
    expect(lost).toBe(2);
    const { businesses } = await pinkas.get('/v1/businesses');
    expect(businesses.map((b) => b.id)).toEqual([business.id]);
  });
});

describe('SDK retries and Idempotency-Keys, against a scripted server', () => {
  const error = (status: number, reason: string) => ({ status, body: { error: `${reason} happened`, reason, requestId: `req_${status}` } });
  const created = { status: 201, body: { ok: true, business: { id: 'biz_1' } } };

  async function withServer(answers: Answer[], retry: ConstructorParameters<typeof Pinkas>[0]['retry'], run: (p: Pinkas) => Promise<unknown>) {
    const server = await fakeServer(answers);
    try {
      const outcome = await run(new Pinkas({ key: 'bk_test_fake', baseUrl: server.baseUrl, retry })).catch((e: unknown) => e);
      return { outcome, received: server.received };
    } finally {
      await server.close();
    }
  }

  it('retries a create after a 503 and a dropped connection with one generated Idempotency-Key, waiting what Retry-After says', async () => {
    const waits: number[] = [];
    const { outcome, received } = await withServer(
      [{ ...error(503, 'unavailable'), headers: { 'retry-after': '7' } }, 'drop', created],
      { maxAttempts: 3, sleep: async (ms) => void waits.push(ms) },
      (p) => p.post('/v1/businesses', { body: BUSINESS }),
    );
    expect(outcome).toEqual({ ok: true, business: { id: 'biz_1' } });
    expect(received).toHaveLength(3);
    const keys = received.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^sdk_[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(received.every((r) => JSON.parse(r.body).name === BUSINESS.name)).toBe(true);
    expect(waits[0]).toBe(7000);
    expect(waits).toHaveLength(2);
  });

  it('keeps a caller’s own Idempotency-Key, honours a 429 on any method, and stops after maxAttempts with the last error', async () => {
    const waits: number[] = [];
    const { outcome, received } = await withServer(
      [{ ...error(429, 'rate_limited'), headers: { 'retry-after': '2' } }, error(500, 'internal'), error(502, 'internal')],
      { maxAttempts: 3, sleep: async (ms) => void waits.push(ms) },
      (p) => p.post('/v1/businesses', { params: { header: { 'idempotency-key': 'mine-1' } }, body: BUSINESS }),
    );
    expect(received.map((r) => r.headers['idempotency-key'])).toEqual(['mine-1', 'mine-1', 'mine-1']);
    expect(waits[0]).toBe(2000);
    expect(outcome).toBeInstanceOf(PinkasError);
    expect([(outcome as PinkasError).status, (outcome as PinkasError).reason, (outcome as PinkasError).requestId]).toEqual([502, 'internal', 'req_502']);
  });

  it('never repeats a POST that is not idempotent after a 5xx or a network error; a 429 it does repeat', async () => {
    const issue = (p: Pinkas) => p.post('/v1/businesses/{bid}/documents/{id}/issue', { params: { path: { bid: 'biz_1', id: 'doc_1' } }, body: {} });
    const after500 = await withServer([error(500, 'internal'), created], { sleep: noWait }, issue);
    expect(after500.received).toHaveLength(1);
    expect(after500.received[0].headers['idempotency-key']).toBeUndefined();
    expect((after500.outcome as PinkasError).status).toBe(500);
    const afterDrop = await withServer(['drop', created], { sleep: noWait }, issue);
    expect(afterDrop.received).toHaveLength(1);
    expect(afterDrop.outcome).toBeInstanceOf(Error);
    const after429 = await withServer([error(429, 'rate_limited'), created], { sleep: noWait }, issue);
    expect(after429.received).toHaveLength(2);
  });

  it('retries a GET after a dropped connection, with a growing backoff when no Retry-After is given', async () => {
    const waits: number[] = [];
    const { outcome, received } = await withServer(
      ['drop', error(503, 'unavailable'), { status: 200, body: { ok: true, businesses: [] } }],
      { maxAttempts: 3, baseDelayMs: 100, sleep: async (ms) => void waits.push(ms) },
      (p) => p.get('/v1/businesses'),
    );
    expect(outcome).toEqual({ ok: true, businesses: [] });
    expect(received).toHaveLength(3);
    expect(waits[0]).toBeGreaterThanOrEqual(50);
    expect(waits[0]).toBeLessThanOrEqual(100);
    expect(waits[1]).toBeGreaterThanOrEqual(100);
    expect(waits[1]).toBeLessThanOrEqual(200);
  });

  it('follows nextCursor page by page', async () => {
    const page = (ids: string[], nextCursor: string | null) => ({ status: 200, body: { ok: true, documents: ids.map((id) => ({ id })), nextCursor } });
    const { outcome, received } = await withServer([page(['d3', 'd2'], 'c1'), page(['d1'], null)], { sleep: noWait }, async (p) => {
      const ids: string[] = [];
      for await (const d of p.all('/v1/businesses/{bid}/documents', 'documents', { params: { path: { bid: 'biz_1' }, query: { take: 2 } } })) ids.push(d.id);
      return ids;
    });
    expect(outcome).toEqual(['d3', 'd2', 'd1']);
    expect(received.map((r) => r.url)).toEqual(['/v1/businesses/biz_1/documents?take=2', '/v1/businesses/biz_1/documents?take=2&cursor=c1']);
  });
});

describe('SDK keys, webhooks and generated types', () => {
  it('chooses sandbox or live by the key and refuses anything else', () => {
    expect(modeOfKey('bk_test_abc')).toBe('sandbox');
    expect(modeOfKey('bk_live_abc')).toBe('live');
    expect(() => new Pinkas({ key: 'sk_live_abc', baseUrl: 'http://127.0.0.1:1' })).toThrow(/bk_test_/);
  });

  it('verifies what the service signs, and nothing else', () => {
    const body = Buffer.from(JSON.stringify({ event: 'document.issued', data: { id: 'doc_1' } }));
    const now = 1_780_000_000;
    const header = signWebhook('whsec_test', body, now);
    expect(verifyWebhook('whsec_test', body, header, { now: now * 1000 })).toEqual({ ok: true, timestamp: now });
    expect(verifyWebhook('whsec_other', body, header, { now: now * 1000 })).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verifyWebhook('whsec_test', Buffer.concat([body, Buffer.from(' ')]), header, { now: now * 1000 })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifyWebhook('whsec_test', body, header, { now: (now + 301) * 1000 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verifyWebhook('whsec_test', body, undefined)).toEqual({ ok: false, reason: 'missing_header' });
    expect(verifyWebhook('whsec_test', body, 'v1=abc')).toEqual({ ok: false, reason: 'malformed_header' });
    // A second v1 (a receiver rotating secrets) is accepted when either matches.
    const rotated = `${header},v1=${'0'.repeat(64)}`;
    expect(verifyWebhook('whsec_test', new Uint8Array(body), rotated, { now: now * 1000 }).ok).toBe(true);
  });

  it('the committed generated types are what the current OpenAPI document generates (npm run sdk:generate)', async () => {
    expect(await staleFiles()).toEqual([]);
  }, 60_000);
});
