/**
 * The lifecycle an integrator writes with `openapi-typescript` types and `openapi-fetch`. Copied
 * next to the generated `./schema.ts` in a temporary directory, type-checked with `tsc --strict`
 * and run by test/clients/generated.test.ts (excluded from the root tsconfig: `./schema.ts` only
 * exists there).
 */
import createClient from 'openapi-fetch';
import type { Business, Delivery, Document, Error as ApiError, Event, Expense, Party, paths, WebhookEndpoint } from './schema.ts';
import type { LifecycleOptions, LifecycleResult } from './lifecycle-types.ts';

/** The named types an integrator imports (`--root-types`), each a type of its own. */
export type Named = [Business, Document, Party, Expense, WebhookEndpoint, Delivery, Event, ApiError];

export async function lifecycle(o: LifecycleOptions): Promise<LifecycleResult> {
  const api = createClient<paths>({ baseUrl: o.baseUrl, headers: { 'X-Api-Key': o.key } });
  const must = <T>(r: { data?: T; error?: unknown; response: Response }, what: string): T => {
    if (r.data === undefined) throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
    return r.data;
  };

  // The document's named types are exported by name (openapi-typescript --root-types).
  const business: Business = must(
    await api.POST('/v1/businesses', {
      params: { header: { 'idempotency-key': `${o.run}-business` } },
      body: { name: 'עסק לדוגמה בע"מ', taxId: '516179157', dealerType: 'company' },
    }),
    'createBusiness',
  ).business;
  const bid = business.id;
  const party = must(
    await api.POST('/v1/businesses/{bid}/parties', { params: { path: { bid } }, body: { name: 'לקוח', taxId: '123456782' } }),
    'createParty',
  ).party;

  const draft = must(
    await api.POST('/v1/businesses/{bid}/documents', {
      params: { path: { bid }, header: { 'idempotency-key': `${o.run}-draft` } },
      body: {
        docType: 320,
        party: { partyId: party.id },
        lines: [{ description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000 }],
        payments: [{ method: 'cash', amount: 11_800 }],
      },
    }),
    'createDocument',
  ).document;
  const issued = must(
    await api.POST('/v1/businesses/{bid}/documents/{id}/issue', { params: { path: { bid, id: draft.id } }, body: {} }),
    'issueDocument',
  ).document;

  // The PDF renders in a background job: 409 pdf_pending with Retry-After until it is ready.
  let pdf: ArrayBuffer | undefined;
  for (let attempt = 0; pdf === undefined; attempt++) {
    const r = await api.POST('/v1/businesses/{bid}/documents/{id}/print', { params: { path: { bid, id: issued.id } }, body: {}, parseAs: 'arrayBuffer' });
    // The types describe a binary body as a string; parseAs gives its bytes.
    if (r.response.status === 200 && r.data !== undefined) pdf = r.data as unknown as ArrayBuffer;
    else if (r.response.status === 409 && attempt < o.maxPolls) await o.sleep(Number(r.response.headers.get('retry-after') ?? '1') * 1000);
    else throw new Error(`printDocument: ${r.response.status} ${JSON.stringify(r.error)}`);
  }

  const credit = must(
    await api.POST('/v1/businesses/{bid}/documents/{id}/credit-note', { params: { path: { bid, id: issued.id } }, body: { reason: 'החזרה' } }),
    'createCreditNote',
  ).document;

  // Every document, a page of one at a time, following nextCursor.
  const listed: string[] = [];
  let cursor: string | undefined;
  do {
    const page = must(await api.GET('/v1/businesses/{bid}/documents', { params: { path: { bid }, query: { take: 1, cursor } } }), 'listDocuments');
    listed.push(...page.documents.map((d) => d.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);

  const run = must(
    await api.POST('/v1/businesses/{bid}/exports/openfrmt', { params: { path: { bid } }, body: { from: '2026-01-01', to: '2026-12-31' } }),
    'createOpenfrmtExport',
  );
  const zip = must(
    await api.GET('/v1/files/{id}', { params: { path: { id: run.file.id } }, parseAs: 'arrayBuffer' }),
    'downloadFile',
  ) as unknown as ArrayBuffer;

  return {
    businessId: bid,
    documentId: issued.id,
    docNumber: issued.docNumber ?? null,
    creditNote: { id: credit.id, docType: credit.docType },
    listed,
    pdf: new Uint8Array(pdf),
    zip: new Uint8Array(zip),
  };
}
