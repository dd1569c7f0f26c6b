/**
 * The lifecycle an integrator writes with the client `@hey-api/openapi-ts` generates (its fetch
 * client, one function per operationId). Copied next to the generated `./client/` in a temporary
 * directory, type-checked with `tsc --strict` and run by test/clients/generated.test.ts (excluded
 * from the root tsconfig: `./client/` only exists there).
 */
import { createClient, createConfig } from './client/client/index.ts';
import * as api from './client/sdk.gen.ts';
import type { Business, Delivery, Document, Error as ApiError, Event, Expense, Party, WebhookEndpoint } from './client/types.gen.ts';
import type { LifecycleOptions, LifecycleResult } from './lifecycle-types.ts';

/** The named types an integrator imports, each a type of its own. */
export type Named = [Business, Document, Party, Expense, WebhookEndpoint, Delivery, Event, ApiError];

export async function lifecycle(o: LifecycleOptions): Promise<LifecycleResult> {
  // The document's security scheme is the X-Api-Key header; `auth` fills it.
  const client = createClient(createConfig({ baseUrl: o.baseUrl, auth: () => o.key }));
  const must = <T>(r: { data?: T; error?: unknown; response?: Response }, what: string): T => {
    if (r.data === undefined) throw new Error(`${what}: ${r.response?.status} ${JSON.stringify(r.error)}`);
    return r.data;
  };

  const { business } = must(
    await api.createBusiness({
      client,
      headers: { 'idempotency-key': `${o.run}-business` },
      body: { name: 'עסק לדוגמה בע"מ', taxId: '516179157', dealerType: 'company' },
    }),
    'createBusiness',
  );
  // The document's named types, exported by name.
  const named: Business = business;
  const bid = named.id;
  const { party } = must(await api.createParty({ client, path: { bid }, body: { name: 'לקוח', taxId: '123456782' } }), 'createParty');

  const { document: draft } = must(
    await api.createDocument({
      client,
      path: { bid },
      headers: { 'idempotency-key': `${o.run}-draft` },
      body: {
        docType: 320,
        party: { partyId: party.id },
        lines: [{ description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000 }],
        payments: [{ method: 'cash', amount: 11_800 }],
      },
    }),
    'createDocument',
  );
  const { document: issued }: { document: Document } = must(await api.issueDocument({ client, path: { bid, id: draft.id }, body: {} }), 'issueDocument');

  // The PDF renders in a background job: 409 pdf_pending with Retry-After until it is ready.
  let pdf: ArrayBuffer | undefined;
  for (let attempt = 0; pdf === undefined; attempt++) {
    const r = await api.printDocument({ client, path: { bid, id: issued.id }, body: {}, parseAs: 'arrayBuffer' });
    // The types describe a binary body as a Blob or string; parseAs gives its bytes.
    if (r.response.status === 200 && r.data !== undefined) pdf = r.data as unknown as ArrayBuffer;
    else if (r.response.status === 409 && attempt < o.maxPolls) await o.sleep(Number(r.response.headers.get('retry-after') ?? '1') * 1000);
    else throw new Error(`printDocument: ${r.response.status} ${JSON.stringify(r.error)}`);
  }

  const { document: credit } = must(await api.createCreditNote({ client, path: { bid, id: issued.id }, body: { reason: 'החזרה' } }), 'createCreditNote');

  // Every document, a page of one at a time, following nextCursor.
  const listed: string[] = [];
  let cursor: string | undefined;
  do {
    const page = must(await api.listDocuments({ client, path: { bid }, query: { take: 1, cursor } }), 'listDocuments');
    listed.push(...page.documents.map((d) => d.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);

  const run = must(await api.createOpenfrmtExport({ client, path: { bid }, body: { from: '2026-01-01', to: '2026-12-31' } }), 'createOpenfrmtExport');
  const zip = must(await api.downloadFile({ client, path: { id: run.file.id }, parseAs: 'arrayBuffer' }), 'downloadFile') as unknown as ArrayBuffer;

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
