import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';

// The database itself refuses changes to an issued document: these attacks use raw SQL, as a
// bug or an operator with a SQL prompt would.
let env: TestEnv;
let a: TestAccount;
let bid: string;
let issuedId: string;
let draftId: string;

async function rejects(text: string): Promise<string> {
  try {
    await env.sql('sandbox', text);
  } catch (err) {
    return String((err as Error).message) + String((err as { cause?: Error }).cause?.message ?? '');
  }
  throw new Error(`the database accepted: ${text}`);
}

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  bid = (await env.business(a.test)).id;
  const mk = async () =>
    (
      await env.call('POST', `/v1/businesses/${bid}/documents`, {
        key: a.test,
        body: {
          docType: 320,
          party: { name: 'לקוח', taxId: TAX_IDS.person },
          lines: [{ description: 'x', quantity: 1, unitPriceExVat: 10_000 }],
          payments: [{ method: 1, amount: 11_800 }],
        },
      })
    ).body.document.id as string;
  issuedId = await mk();
  draftId = await mk();
  const r = await env.call('POST', `/v1/businesses/${bid}/documents/${issuedId}/issue`, { key: a.test });
  expect(r.status).toBe(201);
});
afterAll(async () => env?.close());

describe('an issued document is frozen in the database', () => {
  const frozen: [string, string][] = [
    ['status', `status = 'draft', doc_number = NULL, issued_at = NULL, snapshot = NULL`],
    ['doc_number', 'doc_number = 99'],
    ['doc_type', 'doc_type = 305'],
    ['total', 'total_inc_vat = 1'],
    ['vat amount', 'vat_amount = 0'],
    ['lines', `lines = '[]'::jsonb`],
    ['payments', `payments = '[]'::jsonb`],
    ['party', `party = '{"name":"someone else"}'::jsonb`],
    ['snapshot', `snapshot = jsonb_set(snapshot, '{totals,totalIncVat}', '1')`],
    ['document date', `document_date = '2020-01-01'`],
    ['note', `note = 'edited'`],
    ['vat rate', 'vat_rate_bp = 0'],
    ['issued_at', `issued_at = now()`],
    ['external_ref', `external_ref = 'x'`],
    ['linked document', `linked_document_id = id`],
  ];
  for (const [what, set] of frozen) {
    it(`refuses a change of ${what}`, async () => {
      const msg = await rejects(`UPDATE documents SET ${set} WHERE id = '${issuedId}'`);
      expect(msg).toMatch(/issued|frozen|violates/);
    });
  }

  it('refuses DELETE and TRUNCATE', async () => {
    expect(await rejects(`DELETE FROM documents WHERE id = '${issuedId}'`)).toMatch(/never deleted/);
    expect(await rejects(`TRUNCATE documents CASCADE`)).toMatch(/append-only|refused/);
    const still = await env.sql('sandbox', `SELECT id FROM documents WHERE id = '${issuedId}'`);
    expect(still).toHaveLength(1);
  });

  it('allows the post-issue columns in exactly their ways', async () => {
    await env.sql('sandbox', `UPDATE documents SET allocation_number = 'A1' WHERE id = '${issuedId}'`);
    expect(await rejects(`UPDATE documents SET allocation_number = 'A2' WHERE id = '${issuedId}'`)).toMatch(/allocation_number/);
    expect(await rejects(`UPDATE documents SET allocation_number = NULL WHERE id = '${issuedId}'`)).toMatch(/allocation_number/);
    await env.sql('sandbox', `UPDATE documents SET allocation = '{"status":"granted","number":"A1"}'::jsonb, warnings = '[]'::jsonb WHERE id = '${issuedId}'`);
    await env.sql('sandbox', `UPDATE documents SET warnings = '[{"code":"x","message":"y"}]'::jsonb WHERE id = '${issuedId}'`);
    // The PDFs are named by their pdf_links rows (tampering tests attack those); the retired column is frozen.
    expect(
      await rejects(
        `UPDATE documents SET pdf_files = '{"origin":{"fileId":"f1","slug":"s1"},"copy":{"fileId":"f2","slug":"s2"}}'::jsonb WHERE id = '${issuedId}'`,
      ),
    ).toMatch(/content is frozen/);
    const handed = await env.sql(
      'sandbox',
      `UPDATE documents SET origin_handed_out_at = now() WHERE id = '${issuedId}' AND origin_handed_out_at IS NULL RETURNING id`,
    );
    expect(handed).toHaveLength(1);
    expect(await rejects(`UPDATE documents SET origin_handed_out_at = now() + interval '1 day' WHERE id = '${issuedId}'`)).toMatch(/origin/);
    await env.sql('sandbox', `UPDATE documents SET print_count = print_count + 2 WHERE id = '${issuedId}'`);
    expect(await rejects(`UPDATE documents SET print_count = 1 WHERE id = '${issuedId}'`)).toMatch(/print_count/);
    await env.sql('sandbox', `UPDATE documents SET cancelled_by_document_id = '${draftId}' WHERE id = '${issuedId}'`);
    expect(await rejects(`UPDATE documents SET cancelled_by_document_id = NULL WHERE id = '${issuedId}'`)).toMatch(/cancelled_by_document_id/);
    const view = await env.call('GET', `/v1/businesses/${bid}/documents/${issuedId}`, { key: a.test });
    expect(view.status, JSON.stringify(view.body)).toBe(200);
    expect(view.body.document).toMatchObject({ allocationNumber: 'A1', files: null, printCount: 2 });
  });

  it('a draft stays editable and deletable, and cannot be inserted half-issued', async () => {
    await env.sql('sandbox', `UPDATE documents SET note = 'ok' WHERE id = '${draftId}'`);
    expect(await rejects(`UPDATE documents SET status = 'issued' WHERE id = '${draftId}'`)).toMatch(/documents_issued_complete/);
    expect(await rejects(`UPDATE documents SET doc_number = 5 WHERE id = '${draftId}'`)).toMatch(/documents_issued_complete/);
  });

  it('a number is never handed out twice, and the counter only moves forward', async () => {
    const [row] = await env.sql<Record<string, unknown>>('sandbox', `SELECT * FROM documents WHERE id = '${issuedId}'`);
    expect(
      await rejects(
        `INSERT INTO documents(id, business_id, status, doc_type, doc_number, document_date, value_date, snapshot, issued_at, created_at, updated_at)
         VALUES ('doc_dup', '${bid}', 'issued', 320, ${row.doc_number}, '2026-03-01', '2026-03-01', '{}'::jsonb, now(), now(), now())`,
      ),
    ).toMatch(/documents_number|duplicate/);
    expect(await rejects(`UPDATE document_counters SET last_number = 0 WHERE business_id = '${bid}' AND doc_type = 320`)).toMatch(/forward/);
    expect(await rejects(`UPDATE document_counters SET last_number = NULL WHERE business_id = '${bid}' AND doc_type = 320`)).toMatch(/forward/);
    expect(await rejects(`DELETE FROM document_counters WHERE business_id = '${bid}' AND doc_type = 320`)).toMatch(/refused/);
    expect(await rejects(`UPDATE document_counters SET start_number = 500 WHERE business_id = '${bid}' AND doc_type = 320`)).toMatch(/start_number/);
  });
});
