import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { dataUri, jpeg } from '../expenses/fixtures.ts';
import { FakeChatCompletions } from '../expenses/fake-openai.ts';

// Inputs outside the JSON API's own bodies: text that reaches the database from an upstream (an OCR
// model's answer: it cannot be refused back to its author, so it is made storable), and the
// console's HTML form bodies (refused like any other input, as a 400 page). Neither answers 500.
let env: TestEnv;
let fake: FakeChatCompletions;
let key: string;
let bid: string;
beforeAll(async () => {
  fake = await FakeChatCompletions.start();
  env = await createTestEnv({ env: { OCR_BASE_URL: fake.baseUrl, OCR_API_KEY: 'sk-test-123', OCR_MODEL: 'vision-test-1', OCR_TIMEOUT_MS: '2000' } });
  const a: TestAccount = await env.account({ ocr: true });
  key = (await a.mint({ mode: 'test', scopes: ['businesses', 'expenses', 'ocr'] })).secret;
  bid = (await env.business(key)).id;
});
afterAll(async () => {
  await env?.close();
  await fake?.close();
});

describe('an OCR answer holding NUL or an unpaired surrogate', () => {
  it('is stored without them: the scan opens its draft, no 500', async () => {
    fake.answer({
      kind: 'raw-content',
      content: '{"supplierName":"סופר\\u0000 פארם","documentNumber":"12\\ud80034","note\\u0000":"x","amountIncVat":118,"amountExVat":100,"vatAmount":18}',
    });
    const r = await env.call('POST', `/v1/businesses/${bid}/expenses/scan`, { key, body: { file: dataUri('image/jpeg', await jpeg(200, 300)) } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.expense.supplierName).toBe('סופר פארם');
    const raw = JSON.stringify(r.body.expense.ocrExtraction);
    expect(raw).not.toMatch(/\\u0000|\\ud800/);
    expect(r.body.expense.ocrExtraction.result.documentNumber).toBe('12\ufffd34');
  });
});

describe('the console (HTML forms): NUL in a form field', () => {
  it('is refused with a 400 page, never a 500, and nothing is stored', async () => {
    const { ConsoleClient } = await import('../console/browser.ts');
    const c = new ConsoleClient(env.app);
    await c.get('/console/sign-up');
    // (A browser cannot send an unpaired surrogate: a form encodes it as U+FFFD.)
    for (const form of [{ name: 'Acme\u0000' }, { phone: '+972541234567\u0000' }, { email: 'nul@example.com\u0000' }]) {
      const res = await c.post('/console/sign-up', {
        name: 'Acme',
        email: 'nul@example.com',
        phone: '+972541234567',
        password: 'correct horse battery',
        ...form,
      });
      expect(res.status, res.body.slice(0, 300)).toBe(400);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.headers['x-request-id']).toMatch(/^req_/);
    }
    const rows = await env.sql('live', `SELECT 1 FROM accounts WHERE email = 'nul@example.com'`);
    expect(rows).toHaveLength(0);
    const lang = await c.get('/console/lang?to=en&back=/console/a%00b');
    expect(lang.status).toBe(400);
  });
});
