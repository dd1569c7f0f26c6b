/**
 * The lifecycle an integrator writes with the client orval generates (its fetch client, one function
 * per operationId, answering `{data, status, headers}` typed per status) through its mutator
 * `orval-fetch.ts`. Copied next to the generated `./client/api.ts` in a temporary directory,
 * type-checked with `tsc --strict` and run by test/clients/generated.test.ts (excluded from the root
 * tsconfig: `./client/` only exists there).
 */
import * as api from './client/api.ts';
import type { Business, Delivery, Document, Error as ApiError, Event, Expense, Party, WebhookEndpoint } from './client/api.ts';
import { configure } from './orval-fetch.ts';
import type { LifecycleOptions, LifecycleResult } from './lifecycle-types.ts';

/** The named types an integrator imports, each a type of its own (not `unknown` or an index signature). */
export type Named = [Business, Document, Party, Expense, WebhookEndpoint, Delivery, Event, ApiError];

function must<R extends { status: number; data: unknown }, S extends R['status']>(r: R, status: S, what: string): Extract<R, { status: S }>['data'] {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.data)}`);
  return r.data as Extract<R, { status: S }>['data'];
}

export async function lifecycle(o: LifecycleOptions): Promise<LifecycleResult> {
  configure({ baseUrl: o.baseUrl, key: o.key });
  const key = (what: string) => ({ headers: { 'idempotency-key': `${o.run}-${what}` } });

  const { business } = must(
    await api.createBusiness({ name: 'עסק לדוגמה בע"מ', taxId: '516179157', dealerType: 'company' }, key('business')),
    201,
    'createBusiness',
  );
  const named: Business = business;
  const bid = named.id;
  const { party } = must(await api.createParty(bid, { name: 'לקוח', taxId: '123456782' }), 201, 'createParty');

  const { document: draft } = must(
    await api.createDocument(
      bid,
      {
        docType: 320,
        party: { partyId: party.id },
        lines: [{ description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000 }],
        payments: [{ method: 'cash', amount: 11_800 }],
      },
      key('draft'),
    ),
    201,
    'createDocument',
  );
  const issued: Document = must(await api.issueDocument(bid, draft.id, {}), 201, 'issueDocument').document;

  // The PDF renders in a background job: 409 pdf_pending with Retry-After until it is ready.
  let pdf: Blob | undefined;
  for (let attempt = 0; pdf === undefined; attempt++) {
    const r = await api.printDocument(bid, issued.id, {});
    if (r.status === 200) pdf = r.data;
    else if (r.status === 409 && attempt < o.maxPolls) await o.sleep(Number(r.headers.get('retry-after') ?? '1') * 1000);
    else throw new Error(`printDocument: ${r.status} ${JSON.stringify(r.data)}`);
  }

  const { document: credit } = must(await api.createCreditNote(bid, issued.id, { reason: 'החזרה' }), 201, 'createCreditNote');

  // Every document, a page of one at a time, following nextCursor.
  const listed: string[] = [];
  let cursor: string | undefined;
  do {
    const page = must(await api.listDocuments(bid, { take: 1, cursor }), 200, 'listDocuments');
    listed.push(...page.documents.map((d) => d.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);

  const run = must(await api.createOpenfrmtExport(bid, { from: '2026-01-01', to: '2026-12-31' }), 201, 'createOpenfrmtExport');
  const zip: Blob = must(await api.downloadFile(run.file.id), 200, 'downloadFile');

  return {
    businessId: bid,
    documentId: issued.id,
    docNumber: issued.docNumber ?? null,
    creditNote: { id: credit.id, docType: credit.docType },
    listed,
    pdf: new Uint8Array(await pdf.arrayBuffer()),
    zip: new Uint8Array(await zip.arrayBuffer()),
  };
}
