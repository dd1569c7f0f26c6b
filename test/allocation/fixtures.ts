/**
 * Documents written straight into the table as the documents area leaves them, so the allocation
 * lifecycle is tested on its own: an issued eligible document in `pending` with the
 * `allocation_missing` warning and its `document.allocation` job, or a draft.
 */
import { sql } from 'drizzle-orm';
import type { Mode } from '../../src/platform/db/engine.ts';
import { newId } from '../../src/platform/ids.ts';
import { enqueueJob } from '../../src/platform/jobs.ts';
import type { DocumentSnapshot } from '../../src/documents/snapshot-types.ts';
import type { TestEnv } from '../helpers/env.ts';
import { TAX_IDS } from '../helpers/env.ts';

let seq = 0;

export interface DocOptions {
  totalExVat?: number;
  vatRateBp?: number;
  note?: string | null;
  partyTaxId?: string;
  documentDate?: string;
  docType?: 305 | 320;
}

export async function insertPendingIssued(env: TestEnv, mode: Mode, business: any, o: DocOptions = {}): Promise<string> {
  const now = env.clock.now();
  const id = newId('doc', now.getTime());
  const totalExVat = o.totalExVat ?? 1_500_000;
  const rate = o.vatRateBp ?? 1800;
  const vatAmount = Math.round((totalExVat * rate) / 10000);
  const documentDate = o.documentDate ?? now.toISOString().slice(0, 10);
  const docNumber = ++seq;
  const party = { partyId: null, key: null, name: 'לקוח בע"מ', taxId: o.partyTaxId ?? TAX_IDS.company2, phone: null, email: null, address: null };
  const lines = [{ description: 'ייעוץ', quantity: 1, unitPriceExVat: totalExVat, sku: null, unit: 'יחידה', lineDiscount: 0, amount: totalExVat }];
  const snapshot: DocumentSnapshot = {
    docType: o.docType ?? 305,
    docNumber,
    documentDate,
    valueDate: documentDate,
    issuedAt: now.toISOString(),
    dealer: { name: business.name, taxId: business.taxId, dealerType: business.dealerType, address: null, phone: null, email: null },
    branding: { logoRef: null, accentColor: null, tagline: null, website: null, footerText: null, template: 'classic' },
    party,
    lines,
    payments: [],
    priceMode: 'net',
    vatRateBp: rate,
    vatExemptionReason: null,
    totals: { totalExVat, vatAmount, totalIncVat: totalExVat + vatAmount, discountAmount: 0, withholdingAmount: 0 },
    note: o.note ?? null,
    allocationNumber: null,
    linkedDocument: null,
  };
  const allocation = { status: 'pending', number: null, error: null, requestedAt: now.toISOString(), decidedAt: null };
  const warnings = [{ code: 'allocation_missing', message: 'waiting for the allocation number' }];
  await env.db[mode].db.transaction(async (tx) => {
    await tx.execute(
      sql`INSERT INTO documents(id, business_id, status, doc_type, doc_number, party, lines, note, document_date, value_date, vat_rate_bp,
                                total_ex_vat, vat_amount, total_inc_vat, allocation, warnings, snapshot, issued_at, created_at, updated_at)
          VALUES (${id}, ${business.id}, 'issued', ${snapshot.docType}, ${docNumber}, ${JSON.stringify(party)}::jsonb, ${JSON.stringify(lines)}::jsonb,
                  ${snapshot.note}, ${documentDate}, ${documentDate}, ${rate}, ${totalExVat}, ${vatAmount}, ${totalExVat + vatAmount},
                  ${JSON.stringify(allocation)}::jsonb, ${JSON.stringify(warnings)}::jsonb, ${JSON.stringify(snapshot)}::jsonb,
                  ${now.toISOString()}, ${now.toISOString()}, ${now.toISOString()})`,
    );
    await enqueueJob(tx, now, { kind: 'document.allocation', refId: id, businessId: business.id });
  });
  return id;
}

export async function insertDraft(env: TestEnv, mode: Mode, business: any, o: DocOptions & { partyTaxId?: string | null } = {}): Promise<string> {
  const now = env.clock.now();
  const id = newId('doc', now.getTime());
  const unit = o.totalExVat ?? 1_500_000;
  const documentDate = o.documentDate ?? now.toISOString().slice(0, 10);
  const party = {
    partyId: null,
    key: null,
    name: 'לקוח בע"מ',
    taxId: o.partyTaxId === undefined ? TAX_IDS.company2 : o.partyTaxId,
    phone: null,
    email: null,
    address: null,
  };
  const lines = [{ description: 'ייעוץ', quantity: 1, unitPriceExVat: unit, sku: null, unit: 'יחידה', lineDiscount: 0, amount: unit }];
  await env.db[mode].db.execute(
    sql`INSERT INTO documents(id, business_id, status, doc_type, party, lines, note, document_date, value_date, created_at, updated_at)
        VALUES (${id}, ${business.id}, 'draft', ${o.docType ?? 305}, ${JSON.stringify(party)}::jsonb, ${JSON.stringify(lines)}::jsonb,
                ${o.note ?? null}, ${documentDate}, ${documentDate}, ${now.toISOString()}, ${now.toISOString()})`,
  );
  return id;
}

export async function docRow(env: TestEnv, mode: Mode, id: string): Promise<any> {
  const [r] = await env.sql(mode, `SELECT allocation_number, allocation, warnings, status FROM documents WHERE id = '${id}'`);
  return r;
}

export async function events(env: TestEnv, mode: Mode, name: string): Promise<any[]> {
  return env.sql(mode, `SELECT data FROM outbox_events WHERE event = '${name}' ORDER BY id`);
}
