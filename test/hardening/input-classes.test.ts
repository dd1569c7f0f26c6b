import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { dataUri, multipart, png } from '../expenses/fixtures.ts';
import { expectErrorShape, expectRefused, JSON_HEADERS } from './helpers.ts';

// Issue 16: no input answers a 5xx. Each class of input that used to reach PostgreSQL (or a
// computation) and fail there is refused at the door, as a 4xx in the one error shape, naming the field.
let env: TestEnv;
let a: TestAccount;
let bid: string;
beforeAll(async () => {
  env = await createTestEnv({ env: { UPLOAD_MAX_BYTES: '200000' } });
  a = await env.account();
  bid = (await env.business(a.test)).id;
});
afterAll(async () => env?.close());

const raw = (method: string, url: string, payload: string | Buffer, headers: Record<string, string> = JSON_HEADERS) =>
  env.call(method, url, { key: a.test, payload, headers });

describe('text PostgreSQL cannot store: NUL and unpaired surrogates', () => {
  it('in a JSON body, at any depth, in values and in field names', async () => {
    const cases: [string, string, string][] = [
      ['/v1/businesses', '{"name":"a\\u0000b","taxId":"516179157","dealerType":"company"}', 'body.name'],
      ['/v1/businesses', '{"name":"a\\ud800b","taxId":"516179157","dealerType":"company"}', 'body.name'],
      ['/v1/businesses', '{"name":"a\\udc00","taxId":"516179157","dealerType":"company"}', 'body.name'],
      ['/v1/businesses', '{"name":"\\udc00\\ud800","taxId":"516179157","dealerType":"company"}', 'body.name'],
      [`/v1/businesses/${bid}/parties`, '{"name":"x","address":"\\u0000"}', 'body.address'],
      [
        `/v1/businesses/${bid}/documents`,
        '{"docType":305,"lines":[{"description":"ok","quantity":1,"unitPriceExVat":1},{"description":"\\u0000"}]}',
        'body.lines[1].description',
      ],
      [`/v1/businesses/${bid}/documents`, '{"docType":305,"party":{"name":"p","address":"\\ud83d"}}', 'body.party.address'],
      [`/v1/businesses/${bid}/parties`, '{"na\\u0000me":"x"}', 'body["na\\u0000me"]'],
      [`/v1/businesses/${bid}/parties`, '{"name":"x","\\ud800":"y"}', 'body["\\ud800"]'],
    ];
    for (const [url, payload, field] of cases) {
      const r = await raw('POST', url, payload);
      expectRefused(r, 400, { reason: 'validation', field, label: payload });
      expect(r.body.error).toMatch(/NUL|surrogate/);
    }
    // A well-formed pair is ordinary text and is kept.
    const emoji = await raw('POST', `/v1/businesses/${bid}/parties`, '{"name":"קפה \\ud83d\\ude00"}');
    expect(emoji.status).toBe(201);
    expect(emoji.body.party.name).toBe('קפה 😀');
    const rows = await env.sql('sandbox', `SELECT count(*)::int AS n FROM parties WHERE business_id = '${bid}' AND name LIKE 'a%'`);
    expect(rows[0].n).toBe(0);
  });

  it('in query strings (values and names) and path parameters, on every kind of route', async () => {
    const cases: [string, string][] = [
      [`/v1/businesses/${bid}/expenses?q=a%00b`, 'querystring.q'],
      [`/v1/businesses/${bid}/documents?externalRefPrefix=%00`, 'querystring.externalRefPrefix'],
      [`/v1/businesses/${bid}/documents?status=draft&a%00=1`, 'querystring["a\\u0000"]'],
      [`/v1/businesses/${bid}%00`, 'params.bid'],
      [`/v1/businesses/${bid}/parties/pty_%00`, 'params.id'],
      [`/v1/files/file_%00x`, 'params.id'],
      [`/api/docs/a%00b/d.pdf`, 'params.slug'],
      [`/ita/callback?state=l_a%00b&code=c`, 'querystring.state'],
    ];
    for (const [url, field] of cases) expectRefused(await env.call('GET', url, { key: a.test }), 400, { reason: 'validation', field, label: url });
  });

  it('in a multipart file name, and in the JSON upload name', async () => {
    const bytes = await png(20, 20);
    const m = multipart('file', 'r\u0000.png', { mime: 'image/png', bytes });
    const r = await env.call('POST', `/v1/businesses/${bid}/expenses/upload`, { key: a.test, payload: m.payload, headers: m.headers });
    expectRefused(r, 400, { reason: 'validation', field: 'file.filename' });
    const j = await env.call('POST', `/v1/businesses/${bid}/expenses/upload`, {
      key: a.test,
      body: { file: dataUri('image/png', bytes), name: 'r\u0000.png' },
    });
    expectRefused(j, 400, { reason: 'validation', field: 'body.name' });
    const rows = await env.sql('sandbox', `SELECT count(*)::int AS n FROM files WHERE business_id = '${bid}'`);
    expect(rows[0].n).toBe(0);
  });

  it('bytes that are not UTF-8 are refused, not replaced by U+FFFD; a BOM is tolerated', async () => {
    const latin = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xf9, 0xe5, 0xed]), Buffer.from('"}')]); // שום in ISO-8859-8
    expectRefused(await raw('POST', `/v1/businesses/${bid}/parties`, latin), 400, { reason: 'validation', field: 'body' });
    const cesu = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]); // an encoded surrogate
    expectRefused(await raw('POST', `/v1/businesses/${bid}/parties`, cesu), 400, { reason: 'validation', field: 'body' });
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"BOM בע\\"מ"}')]);
    expect((await raw('POST', `/v1/businesses/${bid}/parties`, bom)).status).toBe(201);
  });
});

describe('JSON structure', () => {
  it('a duplicate key is refused naming it, at any depth and however it is escaped', async () => {
    const cases: [string, string, string][] = [
      [`/v1/businesses/${bid}/parties`, '{"name":"a","name":"b"}', 'body.name'],
      [`/v1/businesses/${bid}/parties`, '{"name":"a","n\\u0061me":"b"}', 'body.name'],
      [
        `/v1/businesses/${bid}/documents`,
        '{"docType":305,"lines":[{"description":"x","quantity":1,"quantity":2,"unitPriceExVat":1}]}',
        'body.lines[0].quantity',
      ],
      [`/v1/businesses/${bid}/documents`, '{"docType":305,"docType":400,"payments":[{"method":"cash","amount":1}]}', 'body.docType'],
    ];
    for (const [url, payload, field] of cases) {
      const r = await raw('POST', url, payload);
      expectRefused(r, 400, { reason: 'validation', field, label: payload });
      expect(r.body.error).toContain('more than once');
    }
    // The same key in two different objects is fine; so is a key that only looks alike inside a string.
    const ok = await raw(
      'POST',
      `/v1/businesses/${bid}/documents`,
      '{"docType":305,"lines":[{"description":"\\"description\\":","quantity":1,"unitPriceExVat":1},{"description":"y","quantity":1,"unitPriceExVat":1}]}',
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it('__proto__ as a field name is refused', async () => {
    expectRefused(await raw('POST', `/v1/businesses/${bid}/parties`, '{"name":"x","__proto__":{"admin":true}}'), 400, {
      reason: 'validation',
      field: 'body.__proto__',
    });
  });

  it('deep nesting is refused quickly, up to the body limit', async () => {
    const started = Date.now();
    const depth = 500_000; // 1 MB of brackets: right under BODY_LIMIT_BYTES
    const r = await raw('POST', `/v1/businesses/${bid}/parties`, `{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    expectRefused(r, 400, { reason: 'validation', field: undefined });
    expect(r.body.error).toMatch(/^body\.name(\[0\])+: is nested more than 32 levels deep$/);
    const objects = await raw('POST', `/v1/businesses/${bid}/parties`, `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
    expectRefused(objects, 400, { reason: 'validation', field: undefined });
    expect(Date.now() - started).toBeLessThan(10_000);
    // Within the limit, nesting is the schema's business: an ordinary 400 for an unknown field.
    expectRefused(await raw('POST', `/v1/businesses/${bid}/parties`, `{"name":"x","extra":${'['.repeat(30)}${']'.repeat(30)}}`), 400, {
      reason: 'validation',
      field: 'body.extra',
    });
  });

  it('a huge array is refused quickly, by the parser bound or the schema bound', async () => {
    const started = Date.now();
    const huge = await raw('POST', `/v1/businesses/${bid}/documents`, `{"docType":305,"lines":[${Array(400_000).fill('0').join(',')}]}`);
    expectRefused(huge, 400, { reason: 'validation', field: 'body.lines' });
    expect(huge.body.error).toBe('body.lines: must have at most 10000 items');
    const line = { description: 'x', quantity: 1, unitPriceExVat: 1 };
    const many = await env.call('POST', `/v1/businesses/${bid}/documents`, { key: a.test, body: { docType: 305, lines: Array(501).fill(line) } });
    expectRefused(many, 400, { reason: 'validation', field: 'body.lines' });
    expect(many.body.error).toBe('body.lines: must have at most 500 items');
    const tooBig = await env.call('POST', `/v1/businesses/${bid}/documents`, { key: a.test, body: { docType: 305, lines: Array(25_000).fill(line) } }); // > 1 MB
    expectRefused(tooBig, 413, { reason: 'too_large' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('malformed JSON, and an empty body where one is required', async () => {
    for (const payload of ['{"name": ', '{"name":"x",}', "{'name':'x'}", '{"name":"x"} {', 'NaN', '{"n":01}']) {
      const r = await raw('POST', `/v1/businesses/${bid}/parties`, payload);
      expectRefused(r, 400, { reason: 'validation', field: 'body', label: payload });
      expect(r.body.error).toBe('body: malformed JSON');
    }
    const empty = await raw('POST', `/v1/businesses/${bid}/parties`, '');
    expectRefused(empty, 400, { reason: 'validation', field: 'body' });
    expect(empty.body.error).toBe('body: is required (an object)');
    expectRefused(await raw('POST', `/v1/businesses/${bid}/parties`, '[]'), 400, { reason: 'validation', field: 'body' });
  });
});

describe('numbers where integers are expected', () => {
  it('1e309 (Infinity) and 2^53+1 are refused naming the field; -0 is read as 0', async () => {
    const docs = `/v1/businesses/${bid}/documents`;
    for (const [payload, field] of [
      ['{"docType":1e309}', 'body.docType'],
      ['{"docType":-1e309}', 'body.docType'],
      ['{"docType":305,"lines":[{"description":"x","quantity":1,"unitPriceExVat":9007199254740993}]}', 'body.lines[0].unitPriceExVat'],
      ['{"docType":305,"lines":[{"description":"x","quantity":1e400,"unitPriceExVat":1}]}', 'body.lines[0].quantity'],
      ['{"docType":400,"payments":[{"method":"cash","amount":18446744073709551616}]}', 'body.payments[0].amount'],
    ] as const) {
      const r = await raw('POST', docs, payload);
      expectRefused(r, 400, { reason: 'validation', field, label: payload });
      expect(r.body.error).toContain('must be a number between -9007199254740991 and 9007199254740991');
    }
    const negZero = await raw(
      'POST',
      docs,
      '{"docType":305,"lines":[{"description":"x","quantity":1,"unitPriceExVat":-0,"lineDiscount":-0}],"discountAmount":-0}',
    );
    expect(negZero.status, JSON.stringify(negZero.body)).toBe(201);
    expect(Object.is(negZero.body.document.lines[0].unitPriceExVat, 0)).toBe(true);
    const stored = await env.sql<{ p: string; d: string }>(
      'sandbox',
      `SELECT lines->0->>'unitPriceExVat' AS p, discount_amount::text AS d FROM documents WHERE id = '${negZero.body.document.id}'`,
    );
    expect(stored[0]).toEqual({ p: '0', d: '0' });
  });

  it('numbers a query string is coerced to: Infinity and numbers past 2^53 are refused', async () => {
    for (const q of ['skip=1e309', 'skip=Infinity', 'skip=1e20', 'skip=9007199254740993', 'take=1e309']) {
      const r = await env.call('GET', `/v1/businesses/${bid}/expenses?${q}`, { key: a.test });
      expectRefused(r, 400, { reason: 'validation', field: `querystring.${q.split('=')[0]}`, label: q });
    }
    expectRefused(await env.call('GET', `/v1/usage?days=1e309`, { key: a.test }), 400, { reason: 'validation', field: 'querystring.days' });
    expect((await env.call('GET', `/v1/businesses/${bid}/expenses?skip=0`, { key: a.test })).status).toBe(200);
  });

  it('amounts that multiply or add up past what a document carries never overflow in SQL (a 400, or exact totals)', async () => {
    // The bounds themselves belong to the documents area (the OPENFRMT field capacities); here only
    // the door's promise: no 5xx, and whatever is accepted has exact totals and issues.
    const docs = `/v1/businesses/${bid}/documents`;
    const line = (quantity: number, unitPriceExVat: number) => ({ description: 'x', quantity, unitPriceExVat });
    const bodies = [
      { docType: 305, lines: [line(1_000_000_000, 100_000_000_000)] },
      { docType: 305, lines: Array(500).fill(line(999_999, 99_999_999_999)) },
      { docType: 305, lines: [line(50, 100_000_000_000), line(50, 100_000_000_000), line(50, 100_000_000_000)] },
      { docType: 305, lines: [line(1, 100_000_000_000)], vatRateBp: 10000 },
      { docType: 400, payments: Array(100).fill({ method: 'cash', amount: 100_000_000_000 }) },
    ];
    for (const body of bodies) {
      const r = await env.call('POST', docs, { key: a.test, body });
      const label = JSON.stringify(body).slice(0, 100);
      if (r.status >= 400) {
        expectRefused(r, 400, { reason: 'validation', field: undefined, label });
        expect(r.body.error, label).toMatch(/^body\./);
        continue;
      }
      expect(r.status, label).toBe(201);
      const issued = await env.call('POST', `${docs}/${r.body.document.id}/issue`, { key: a.test });
      expect(issued.status, `${label} ${JSON.stringify(issued.body)}`).toBeLessThan(500);
      const d = issued.status === 201 ? issued.body.document : r.body.document;
      for (const k of ['totalExVat', 'vatAmount', 'totalIncVat']) expect(Number.isSafeInteger(d[k]), `${label} ${k}`).toBe(true);
      expect(d.totalIncVat).toBe(d.totalExVat + d.vatAmount);
    }
  });
});

describe('content types and multipart', () => {
  it('a body of a type the route does not take is 415, naming what it takes', async () => {
    const parties = `/v1/businesses/${bid}/parties`;
    for (const [ct, payload] of [
      ['text/plain', '{"name":"x"}'],
      ['application/xml', '<name>x</name>'],
      ['application/x-www-form-urlencoded', 'name=x'],
      ['multipart/form-data; boundary=x', '--x\r\n\r\n--x--'],
      ['application/vnd.api+json', '{"name":"x"}'],
    ]) {
      const r = await raw('POST', parties, payload, { 'content-type': ct });
      expectRefused(r, 415, { reason: 'validation', field: 'Content-Type', label: ct });
      expect(r.body.error).toContain('send application/json');
    }
    const none = await env.call('POST', parties, { key: a.test, payload: '{"name":"x"}' });
    expectRefused(none, 415, { reason: 'validation', field: 'Content-Type' });
    const upload = await raw('POST', `/v1/businesses/${bid}/expenses/upload`, 'x', { 'content-type': 'image/png' });
    expectRefused(upload, 415, { reason: 'validation', field: 'Content-Type' });
    expect(upload.body.error).toContain('application/json or multipart/form-data');
    // A charset parameter on JSON is fine (JSON is UTF-8 whatever it says).
    expect((await raw('POST', parties, '{"name":"charset"}', { 'content-type': 'application/json; charset=utf-8' })).status).toBe(201);
  });

  it('malformed multipart is a 400 naming the file part, never a 5xx', async () => {
    const url = `/v1/businesses/${bid}/expenses/upload`;
    const bytes = await png(10, 10);
    const good = multipart('file', 'r.png', { mime: 'image/png', bytes });
    const cases: [string, string | Buffer][] = [
      ['multipart/form-data', 'abc'],
      ['multipart/form-data; boundary=zz', 'no boundary anywhere'],
      ['multipart/form-data; boundary=zz', '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\ntruncated'],
      [
        'multipart/form-data; boundary=zz',
        '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\r\n--zz--\r\n',
      ],
      ['multipart/form-data; boundary=zz', '--zz\r\nContent-Disposition: form-data; name="other"; filename="a.png"\r\n\r\nxx\r\n--zz--\r\n'],
      ['multipart/form-data; boundary=zz', '--zz--\r\n'],
      [good.headers['content-type'], good.payload.subarray(0, good.payload.length - 40)],
    ];
    for (const [ct, payload] of cases) {
      const r = await raw('POST', url, payload, { 'content-type': ct });
      expectErrorShape(r, `${ct} ${String(payload).slice(0, 40)}`);
      expect([400, 413], JSON.stringify(r.body)).toContain(r.status);
    }
    const two = Buffer.concat([
      Buffer.from('--zz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n'),
      bytes,
      Buffer.from('\r\n--zz\r\nContent-Disposition: form-data; name="file"; filename="b.png"\r\nContent-Type: image/png\r\n\r\n'),
      bytes,
      Buffer.from('\r\n--zz--\r\n'),
    ]);
    // Two file parts: the first is taken (the intake reads one part); whatever the outcome, no 5xx.
    const r = await raw('POST', url, two, { 'content-type': 'multipart/form-data; boundary=zz' });
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
  });
});

describe('URLs', () => {
  it('bad percent-encoding and overlong path segments answer 400 in the shape', async () => {
    for (const url of [`/v1/businesses/${bid}/parties/pty%zz`, `/v1/businesses/${bid}/parties/pty%ED%A0%80`, `/v1/businesses/%C0%AF`]) {
      const r = await env.call('GET', url, { key: a.test });
      expectRefused(r, 400, { reason: 'validation', field: 'path', label: url });
      expect(r.headers['x-service-mode']).toBe('sandbox');
    }
    expectRefused(await env.call('GET', `/v1/businesses/${bid}/parties/${'x'.repeat(200)}`, { key: a.test }), 400, {
      reason: 'validation',
      field: 'params.id',
    });
    expectRefused(await env.call('GET', `/v1/businesses/${bid}/parties/${'x'.repeat(5000)}`, { key: a.test }), 400, { reason: 'validation', field: 'path' });
    // A malformed query string is read literally, as browsers do; it never fails.
    expect((await env.call('GET', `/v1/businesses/${bid}/expenses?q=%zz`, { key: a.test })).status).toBe(200);
  });
});
