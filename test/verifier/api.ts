/** Reading what the independent verifier needs through the public API only (no SQL, nothing from src/). */
import type { TestEnv } from '../helpers/env.ts';
import { verifyOpenfrmt, type ApiDocument, type ApiLedger, type Defect } from './openfrmt-verifier.ts';

/** Every document of a business, as GET /v1/businesses/{bid}/documents answers them (pages of 1000 by `skip`). */
export async function fetchAllDocuments(env: TestEnv, key: string, bid: string): Promise<ApiDocument[]> {
  const out: ApiDocument[] = [];
  for (let skip = 0; ; skip += 1000) {
    const r = await env.call('GET', `/v1/businesses/${bid}/documents?take=1000&skip=${skip}`, { key });
    if (r.status !== 200) throw new Error(`list documents: ${r.status} ${JSON.stringify(r.body)}`);
    out.push(...r.body.documents);
    if (r.body.documents.length < 1000) return out;
  }
}

export async function downloadFile(env: TestEnv, key: string, fileId: string): Promise<Uint8Array> {
  const f = await env.call('GET', `/v1/files/${fileId}`, { key });
  if (f.status !== 200) throw new Error(`download ${fileId}: ${f.status}`);
  return new Uint8Array(f.raw);
}

export async function fetchBusiness(env: TestEnv, key: string, bid: string): Promise<any> {
  const r = await env.call('GET', `/v1/businesses/${bid}`, { key });
  if (r.status !== 200) throw new Error(`business ${bid}: ${r.status}`);
  return r.body.business;
}

/** The books through the API: every journal entry (paged by `after`) and the trial balances around the range. */
export async function fetchLedger(env: TestEnv, key: string, bid: string, range: { from: string; to: string }): Promise<ApiLedger> {
  const entries: ApiLedger['entries'] = [];
  for (let after = 0; ;) {
    const r = await env.call('GET', `/v1/businesses/${bid}/ledger/entries?take=500&after=${after}`, { key });
    if (r.status !== 200) throw new Error(`ledger entries: ${r.status} ${JSON.stringify(r.body)}`);
    entries.push(...r.body.entries);
    if (r.body.nextAfter === null) break;
    after = r.body.nextAfter;
  }
  const dayBefore = new Date(Date.parse(`${range.from}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  const tb = async (at: string) => {
    const r = await env.call('GET', `/v1/businesses/${bid}/ledger/trial-balance?at=${at}`, { key });
    if (r.status !== 200) throw new Error(`trial balance: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.accounts;
  };
  return { entries, trialBalanceBefore: await tb(dayBefore), trialBalanceAt: await tb(range.to) };
}

/** Downloads an export run's zip and verifies it against the business's documents, all through the API. */
export async function verifyExportThroughApi(
  env: TestEnv,
  key: string,
  bid: string,
  run: { fileId: string; from: string; to: string },
): Promise<{ defects: Defect[]; zip: Uint8Array; documents: ApiDocument[]; business: any; ledger: ApiLedger | undefined }> {
  const [zip, documents, business] = await Promise.all([downloadFile(env, key, run.fileId), fetchAllDocuments(env, key, bid), fetchBusiness(env, key, bid)]);
  // A double-entry business exports its books: they are verified against the API's ledger.
  const ledger = business.bookkeeping === 'double' ? await fetchLedger(env, key, bid, { from: run.from, to: run.to }) : undefined;
  const defects = verifyOpenfrmt({
    zip,
    business: { taxId: business.taxId, name: business.name, address: business.address },
    documents,
    range: { from: run.from, to: run.to },
    ledger,
  });
  return { defects, zip, documents, business, ledger };
}
