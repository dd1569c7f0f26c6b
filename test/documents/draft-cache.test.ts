/**
 * Issuing a draft this process created sends one statement (documents/draft-cache.ts): the draft it
 * remembers is the row the database holds, and a row changed behind it is read again before issue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { rememberDraft, takeDraft } from '../../src/documents/draft-cache.ts';
import { getDocumentRow } from '../../src/documents/snapshot.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;

const line = (over: Record<string, unknown> = {}) => ({ description: 'ייעוץ', quantity: 1.5, unitPriceExVat: 10_000, ...over });
const draft = async (body: Record<string, unknown>, headers?: Record<string, string>) => {
  const r = await env.call('POST', `/v1/businesses/${bid}/documents`, { key: a.test, body, headers });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.document.id as string;
};
const issue = (id: string) => env.call('POST', `/v1/businesses/${bid}/documents/${id}/issue`, { key: a.test });

/** The statements sent on the sandbox pool while `fn` runs, by their text. */
async function statementsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const pool = env.db.sandbox.pool;
  const query = pool.query.bind(pool);
  const texts: string[] = [];
  pool.query = ((...args: Parameters<typeof query>) => {
    const q = args[0] as unknown as string | { text: string };
    texts.push(typeof q === 'string' ? q : q.text);
    return query(...args);
  }) as typeof pool.query;
  try {
    await fn();
  } finally {
    pool.query = query;
  }
  return texts;
}
/** Of those, the ones that read or write documents (a business's lookup may miss its cache, as on a cold server). */
const documentStatements = (texts: string[]) =>
  texts.filter((t) => /\bdocuments\b|issue_document/.test(t)).map((t) => (/issue_document/.test(t) ? 'issue_document' : 'read the draft'));

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  bid = (await env.business(a.test)).id;
});
afterAll(async () => env?.close());

describe('the drafts a process remembers for their issue', () => {
  const party = (await_: string) => ({ name: `לקוח ${await_}`, taxId: TAX_IDS.company, email: 'buyer@example.com' });
  const bodies: [string, Record<string, unknown>, Record<string, string>?][] = [
    ['a 320 with a card payment', { docType: 320, party: party('א'), lines: [line()], payments: [{ method: 'card', amount: 17_700 }] }],
    [
      'a 305 dated at issue, with a discount and metadata',
      { docType: 305, lines: [line(), line({ quantity: 2 })], discountAmount: 500, metadata: { order: 'A-1' } },
    ],
    ['a 305 in dollars with its rate', { docType: 305, currency: 'USD', exchangeRate: '3.6545', lines: [line({ unitPriceExVat: 3_750 })] }],
    ['a 400 with an idempotency key', { docType: 400, payments: [{ method: 'cash', amount: 5_000 }] }, { 'Idempotency-Key': 'draft-cache-400' }],
  ];
  for (const [name, body, headers] of bodies) {
    it(`remembers ${name} exactly as the database holds it`, async () => {
      const id = await draft(body, headers);
      const remembered = takeDraft(env.db.sandbox, bid, id);
      expect(remembered).toBeDefined();
      const [{ version }] = await env.sql<{ version: string }>('sandbox', `SELECT xmin::text AS version FROM documents WHERE id = '${id}'`);
      expect(remembered!.version).toBe(version);
      expect(remembered!.row).toEqual(await getDocumentRow(env.db.sandbox.db, bid, id));
      expect(takeDraft(env.db.sandbox, bid, id)).toBeUndefined(); // taken once
    });
  }

  it('issues a remembered draft in one statement, and one it does not remember in two', async () => {
    const id = await draft(bodies[0][1]);
    const statements = await statementsDuring(async () => expect((await issue(id)).status).toBe(201));
    expect(documentStatements(statements)).toEqual(['issue_document']);
    const other = await draft(bodies[0][1]);
    takeDraft(env.db.sandbox, bid, other); // as if another process had created it
    expect(documentStatements(await statementsDuring(async () => expect((await issue(other)).status).toBe(201)))).toEqual(['read the draft', 'issue_document']);
  });

  it('reads a draft changed behind its back (another process, raw SQL) and issues what the database holds', async () => {
    const id = await draft({ docType: 305, lines: [line()] });
    await env.sql('sandbox', `UPDATE documents SET note = 'changed elsewhere' WHERE id = '${id}'`);
    const r = await issue(id);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.document).toMatchObject({ status: 'issued', note: 'changed elsewhere' });
  });

  it('forgets a draft patched or deleted through this process, and never hands one to another business', async () => {
    const id = await draft({ docType: 305, lines: [line()] });
    expect((await env.call('PATCH', `/v1/businesses/${bid}/documents/${id}`, { key: a.test, body: { note: 'patched' } })).status).toBe(200);
    expect(takeDraft(env.db.sandbox, bid, id)).toBeUndefined();
    expect((await issue(id)).body.document.note).toBe('patched');

    const gone = await draft({ docType: 305, lines: [line()] });
    expect((await env.call('DELETE', `/v1/businesses/${bid}/documents/${gone}`, { key: a.test })).status).toBe(200);
    expect(takeDraft(env.db.sandbox, bid, gone)).toBeUndefined();

    const mine = await draft({ docType: 305, lines: [line()] });
    const row = await getDocumentRow(env.db.sandbox.db, bid, mine);
    rememberDraft(env.db.sandbox, { row, version: '0' });
    expect(takeDraft(env.db.sandbox, 'biz_someone_else', mine)).toBeUndefined();
  });
});
