/**
 * Seeds large books: N issued documents in one business, in bulk (COPY FROM STDIN), with exactly
 * the rows the API's draft + issue path writes for each of them:
 *
 *  - documents: the issued row (number taken from the series' counter, frozen snapshot, party and
 *    lines as issued, allocation state, warnings), as `createDraft` inserts it and `issueDocument`
 *    updates it. Inserting an issued row is what no trigger forbids (the immutability triggers of
 *    migrations 0002/0009 guard UPDATE, DELETE and TRUNCATE), and the CHECK documents_issued_complete
 *    holds by construction;
 *  - document_counters: each series' counter moved to its last number (gapless: the numbers are
 *    taken under the counter row's lock, in document-date order);
 *  - audit_log + audit_chain_heads: the `document.create` row (Document JSON of the draft) and the
 *    `document.issue` row (Document JSON as issued) of each document on the business's chain,
 *    hashed with `auditHash`/`plain` (src/platform/audit.ts) so `audit verify` (verifyBooks) passes;
 *  - outbox_events: the `document.issued` event (with `settled`, the default, already dispatched:
 *    the state after the dispatcher has passed over it with no endpoint to deliver to);
 *  - the ledger (migration 0015): each document's journal entry and lines (src/ledger/post.ts
 *    documentEntryOf, the same function issuing uses), the accounts they need, the entry counter;
 *  - usage_daily: `documents_opened` and `documents_issued` per business, per day (as issue.ts counts them);
 *    document_month_counts (migration 0010, when present): issued documents per business and month;
 *  - jobs: with `pending: true`, the `document.render` job of each document (and `document.allocation`
 *    where the allocation is pending), exactly as issuing leaves them. By default they are left out:
 *    a server started on the seeded books would otherwise spend hours rendering a million PDFs, so the
 *    seeded documents have no PDF (as if rendering were switched off).
 *
 * The values come from the same code the API runs (normalizeLine/normalizePayment/normalizeInlineParty,
 * checkDraft, totalsOfDraft, allocationEligibility, documentView, requestHash); test/documents/seed.test.ts
 * compares seeded rows with rows issued over HTTP from the same bodies.
 *
 * Books look like this: `perDay` documents a day (default 300, the daily backstop per business),
 * on consecutive days ending `lastDay` (default yesterday, Israel time, so today's allowance is
 * untouched), issued between 06:00 and 16:00 UTC (within the Israel day); a mix of 305 (50%), 320
 * (35%) and 400 (15%) (an exempt dealer: 400 only); saved parties (created through the parties
 * service), inline parties and anonymous receipts; Hebrew line descriptions from a small vocabulary;
 * externalRef on 90% of them (prefixes shop-, pos-, erp-). Credit notes (330) are not seeded.
 * Amounts stay under 5,000 NIS before VAT, so no document needs an allocation number or a buyer's tax id.
 *
 * Each batch (default 20,000 documents) is one transaction that locks the series' counters and the
 * chain head, so the API may run meanwhile (its issues in that business wait for a batch to
 * commit). Seed a fresh business: numbers continue the series, and document dates are in the past.
 *
 * Usage: see bench/seed/main.ts (`npx tsx bench/seed/main.ts --business ID --count 1000000`).
 */
import { once } from 'node:events';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/platform/db/engine.ts';
import { queryOne } from '../../src/platform/db/sql.ts';
import { auditHash, type Actor } from '../../src/platform/audit.ts';
import { randomBytes } from 'node:crypto';
import type { IdPrefix } from '../../src/platform/ids.ts';
import { israelDate } from '../../src/platform/clock.ts';
import { documentEntryOf } from '../../src/ledger/post.ts';
import { accountRows } from '../../src/ledger/store.ts';
import { toBusinessRecord, type BusinessRecord } from '../../src/businesses/records.ts';
import { insertParty, listParties, newPartyFrom } from '../../src/parties/service.ts';
import type { PartyView } from '../../src/parties/schemas.ts';
import { allocationEligibility } from '../../src/documents/allocation-eligibility.ts';
import { requestHash } from '../../src/documents/drafts.ts';
import { checkDraft, normalizeInlineParty, normalizeLine, normalizePayment, type DraftFields } from '../../src/documents/draft-input.ts';
import { buyerTaxIdRequired, docTypeAllowed, paymentsProblem, totalsOfDraft } from '../../src/documents/totals.ts';
import { documentView, type DocType, type DocumentRow } from '../../src/documents/snapshot.ts';
import { type AllocationState, type DocumentParty, type DocumentSnapshot, type DocumentWarning } from '../../src/documents/snapshot-types.ts';
import type { DraftCreateBody } from '../../src/documents/schemas.ts';
import { DOCUMENTS_PER_BUSINESS_PER_DAY } from '../../src/documents/issue.ts';

export interface SeedOptions {
  businessId: string;
  count: number;
  /** Documents per day (default 300). */
  perDay?: number;
  /** The last document date, YYYY-MM-DD (default: yesterday, Israel time). */
  lastDay?: string;
  /** Documents per transaction (default 20,000). */
  batch?: number;
  /** Saved parties created and used by the documents (default 500; 0 for inline parties only). */
  parties?: number;
  /** Leave the outbox events undispatched and enqueue the render jobs, exactly as issuing leaves them. */
  pending?: boolean;
  /** The writer (default: the business's account and the key that created it). */
  actor?: Actor;
  /** Deterministic content (ids and hashes still differ): the PRNG seed (default 17). */
  seed?: number;
  /**
   * The draft bodies to seed instead of generated ones (count is their number; each needs its
   * documentDate). Saved parties they name must exist in the business.
   */
  bodies?: DraftCreateBody[];
  onProgress?: (done: number, total: number, elapsedMs: number) => void;
  /** false: let every trigger fire even when the role could skip them (slower; see seedDocuments). */
  replica?: boolean;
}

export interface SeedResult {
  documents: number;
  auditRows: number;
  firstDay: string;
  lastDay: string;
  byDocType: Record<number, { first: number; last: number }>;
  partyIds: string[];
  ms: number;
  perSecond: number;
  /** Where the time went: generating rows in JS, each COPY, the rest of each transaction. */
  phasesMs: Record<string, number>;
}

// ---------------------------------------------------------------------------------------------
// Content

const ITEMS = [
  'שיפוץ מטבח',
  'ייעוץ עסקי',
  'הנהלת חשבונות',
  'תיקון מזגן',
  'עיצוב גרפי',
  'בניית אתר',
  'צילום אירוע',
  'שיעור פרטי',
  'הובלה',
  'ניקיון משרד',
  'אינסטלציה',
  'חשמלאות',
  'צביעת דירה',
  'גינון',
  'הדברה',
  'תרגום מסמך',
  'עריכת וידאו',
  'שירותי מחשוב',
  'אחסון אתר',
  'רישיון תוכנה',
  'מנוי חודשי',
  'קורס מקוון',
  'סדנת צוות',
  'טיפול רגשי',
  'פיזיותרפיה',
  'ייעוץ משפטי',
  'שמאות רכב',
  'תחזוקת מעלית',
  'החלפת צנרת',
  'התקנת מצלמות',
  'איטום גג',
  'ריצוף',
  'נגרות',
  'מסגרות',
  'זגגות',
  'קייטרינג',
  'השכרת ציוד',
  'Consulting',
  'Web hosting',
  'Software license',
  'Design work',
  'Training session',
  'Maintenance',
  'Cloud backup',
];
const QUALIFIERS = ['', '', '', ' - חודשי', ' - שנתי', ' דחוף', ' כולל חלקים', ' שלב א', ' שלב ב', ' לפי שעה', ' premium', ' basic'];
const FIRST = [
  'משה',
  'דנה',
  'יוסי',
  'רונית',
  'אבי',
  'מיכל',
  'דוד',
  'שרה',
  'איתי',
  'נועה',
  'עומר',
  'תמר',
  'אורי',
  'יעל',
  'גיל',
  'ליאת',
  'Daniel',
  'Maya',
  'Ron',
  'Noa',
];
const LAST = [
  'כהן',
  'לוי',
  'מזרחי',
  'פרץ',
  'ביטון',
  'דהן',
  'אברהם',
  'פרידמן',
  'אזולאי',
  'גבאי',
  'שפירא',
  'רוזן',
  'בן דוד',
  'חדד',
  'Cohen',
  'Levi',
  'Katz',
  'Green',
];
const COMPANIES = ['בע"מ', 'שותפות', 'ושות', 'Ltd', 'סחר', 'שירותים', 'טכנולוגיות', 'השקעות'];
const CITIES = ['תל אביב', 'חיפה', 'ירושלים', 'באר שבע', 'נתניה', 'רמת גן', 'Eilat'];
const PAY_METHODS = ['cash', 'card', 'transfer', 'bit', 3, 4] as const;
const REF_PREFIXES = ['shop-', 'pos-', 'erp-'];

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  return { next, int, pick };
}
type Rng = ReturnType<typeof prng>;

function personName(r: Rng): string {
  const n = `${r.pick(FIRST)} ${r.pick(LAST)}`;
  return r.next() < 0.25 ? `${r.pick(LAST)} ${r.pick(COMPANIES)}` : n;
}

function lineBodies(r: Rng) {
  const n = r.int(1, 3);
  return Array.from({ length: n }, () => {
    const line: { description: string; quantity: number; unitPriceExVat: number; sku?: string } = {
      description: `${r.pick(ITEMS)}${r.pick(QUALIFIERS)}`,
      quantity: r.pick([1, 1, 1, 2, 3, 0.5, 1.5, 2.25]),
      unitPriceExVat: r.int(500, 50_000),
    };
    if (r.next() < 0.3) line.sku = `SKU-${r.int(1, 400)}`;
    return line;
  });
}

/**
 * The draft body of document number `n` (0-based) of the seed: deterministic for a given PRNG
 * state. `partyIds` are the saved parties to draw from.
 */
export function draftBody(
  r: Rng,
  { business, partyIds, documentDate, externalRef }: { business: BusinessRecord; partyIds: string[]; documentDate: string; externalRef: string | null },
): DraftCreateBody {
  const receiptsOnly = !docTypeAllowed(business.dealerType, 305);
  const x = r.next();
  const docType: 305 | 320 | 400 = receiptsOnly ? 400 : x < 0.5 ? 305 : x < 0.85 ? 320 : 400;
  const p = r.next();
  let party: DraftCreateBody['party'];
  if (docType === 400 && p < 0.3) party = null;
  else if (partyIds.length > 0 && p < 0.7) party = { partyId: r.pick(partyIds) };
  else {
    party = { name: personName(r) };
    if (r.next() < 0.3) party.phone = `05${r.int(0, 9)}${String(r.int(0, 9_999_999)).padStart(7, '0')}`;
    if (r.next() < 0.3) party.address = `${r.pick(CITIES)} ${r.int(1, 200)}`;
  }
  const body: DraftCreateBody = { docType, documentDate };
  if (party !== undefined) body.party = party;
  if (docType !== 400) body.lines = lineBodies(r);
  if (docType === 320) {
    // An invoice/receipt is paid in full: one payment of the total.
    const t = totalsOfDraft(
      {
        docType,
        priceMode: 'net',
        lines: body.lines!.map(normalizeLine),
        payments: [],
        documentDate,
        vatRateBp: null,
        discountAmount: 0,
        withholdingAmount: 0,
      },
      business,
    );
    body.payments = [{ method: r.pick(PAY_METHODS), amount: t.totalIncVat }] as DraftCreateBody['payments'];
  }
  if (docType === 400) {
    const k = r.int(1, 2);
    body.payments = Array.from({ length: k }, () => ({ method: r.pick(PAY_METHODS), amount: r.int(1_000, 300_000) })) as DraftCreateBody['payments'];
  }
  if (externalRef) body.externalRef = externalRef;
  return body;
}

// ---------------------------------------------------------------------------------------------
// Rows

/** COPY text format: backslash, newline, carriage return and tab escaped; null is \N. */
function esc(v: string | number | null): string {
  if (v === null) return '\\N';
  if (typeof v === 'number') return String(v);
  if (!/[\\\n\r\t]/.test(v)) return v;
  return v.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'));
}
const row = (vals: (string | number | null)[]) => vals.map(esc).join('\t') + '\n';

const DOC_COLUMNS = [
  'id',
  'business_id',
  'status',
  'doc_type',
  'doc_number',
  'party_id',
  'party',
  'price_mode',
  'lines',
  'payments',
  'note',
  'document_date',
  'value_date',
  'vat_rate_bp',
  'vat_exemption_reason',
  'discount_amount',
  'withholding_amount',
  'total_ex_vat',
  'vat_amount',
  'total_inc_vat',
  'external_ref',
  'request_hash',
  'allocation_number',
  'allocation',
  'warnings',
  'snapshot',
  'issued_at',
  'created_by_key_id',
  'created_at',
  'updated_at',
];
const AUDIT_COLUMNS = [
  'id',
  'chain',
  'at',
  'account_id',
  'key_id',
  'business_id',
  'action',
  'entity_type',
  'entity_id',
  'before',
  'after',
  'prev_hash',
  'hash',
];
const EVENT_COLUMNS = ['id', 'event', 'account_id', 'business_id', 'data', 'created_at', 'dispatched_at'];
const JOB_COLUMNS = ['id', 'kind', 'business_id', 'ref_id', 'payload', 'run_at', 'created_at'];
const ENTRY_COLUMNS = [
  'id',
  'business_id',
  'entry_no',
  'entry_date',
  'source',
  'document_id',
  'reference',
  'reference_doc_type',
  'description',
  'created_by_key_id',
  'created_at',
];
const LINE_COLUMNS = ['entry_id', 'line_no', 'business_id', 'account_code', 'side', 'amount'];

/** What the API stores for one document created from `body` at `createdAt` and issued as number `docNumber` at `issuedAt`. */
export interface IssuedRows {
  draft: DocumentRow;
  issued: DocumentRow;
  jobs: { kind: string }[];
}

/**
 * The draft row `createDraft` inserts for `body`, and the issued row `issueDocument` turns it into:
 * the same normalisation, checks, totals, allocation state, warnings and snapshot.
 */
export function issuedRows(
  business: BusinessRecord,
  {
    savedParties,
    keyId,
    body,
    ids,
  }: {
    savedParties: Map<string, PartyView>;
    keyId: string | null;
    body: DraftCreateBody;
    ids: { id: string; createdAt: string; issuedAt: string; docNumber: number };
  },
): IssuedRows {
  const party = ((): DocumentParty | null => {
    const p = body.party;
    if (p === undefined || p === null) return null;
    if ('partyId' in p) {
      const s = savedParties.get(p.partyId);
      if (!s) throw new Error(`seed: unknown saved party ${p.partyId}`);
      return { partyId: s.id, key: s.key, name: s.name, taxId: s.taxId, phone: s.phone, email: s.email, address: s.address };
    }
    return normalizeInlineParty(p);
  })();
  const fields: DraftFields = {
    docType: body.docType,
    party,
    priceMode: body.priceMode ?? 'net',
    lines: (body.lines ?? []).map(normalizeLine),
    payments: (body.payments ?? []).map(normalizePayment),
    note: body.note ?? null,
    documentDate: body.documentDate!,
    valueDate: body.valueDate ?? body.documentDate!,
    vatRateBp: body.vatRateBp ?? null,
    vatExemptionReason: body.vatExemptionReason ?? null,
    discountAmount: body.discountAmount ?? 0,
    withholdingAmount: body.withholdingAmount ?? 0,
    allocationNumber: body.allocationNumber ?? null,
    currency: 'ILS',
    exchangeRate: null,
    language: 'he',
  };
  checkDraft(fields, business.dealerType);
  const draftTotals = totalsOfDraft(fields, business);
  const draft: DocumentRow = {
    id: ids.id,
    businessId: business.id,
    status: 'draft',
    docType: fields.docType,
    docNumber: null,
    partyId: party?.partyId ?? null,
    party,
    priceMode: fields.priceMode,
    lines: fields.lines,
    payments: fields.payments,
    note: fields.note,
    documentDate: fields.documentDate,
    valueDate: fields.valueDate,
    datedAtIssue: false,
    vatRateBp: fields.vatRateBp,
    vatExemptionReason: fields.vatExemptionReason,
    discountAmount: fields.discountAmount,
    withholdingAmount: fields.withholdingAmount,
    totalExVat: draftTotals.totalExVat,
    vatAmount: draftTotals.vatAmount,
    totalIncVat: draftTotals.totalIncVat,
    currency: 'ILS',
    exchangeRate: null,
    exchangeRateDate: null,
    exchangeRateSource: null,
    language: 'he',
    linkedDocumentId: null,
    externalRef: body.externalRef ?? null,
    metadata: {},
    requestHash: requestHash(body, body.externalRef ?? null),
    allocationNumber: fields.allocationNumber,
    allocation: null,
    warnings: [],
    cancelledByDocumentId: null,
    pdfFiles: null,
    originHandedOutAt: null,
    printCount: 0,
    snapshot: null,
    issuedAt: null,
    createdByKeyId: keyId,
    createdAt: ids.createdAt,
    updatedAt: ids.createdAt,
  };

  // issueDocument, on the stored draft (nothing changed the saved party in between).
  const totals = totalsOfDraft(draft, business);
  const payProblem = paymentsProblem(draft.docType, totals, draft.payments.length);
  if (payProblem) throw new Error(`seed: payments: ${payProblem}`);
  const warnings: DocumentWarning[] = [];
  if (buyerTaxIdRequired(draft.docType, totals.totalExVat) && !party?.taxId) {
    warnings.push({
      code: 'buyer_tax_id_missing',
      message: 'the amount before VAT is 5,000 NIS or more: when the buyer is a dealer, their tax id must appear on the document',
    });
  }
  const eligibility = allocationEligibility({
    docType: draft.docType,
    documentDate: draft.documentDate,
    totalExVat: totals.totalExVat,
    vatAmount: totals.vatAmount,
    partyTaxId: party?.taxId,
  });
  let allocation: AllocationState = { status: 'not_required', number: draft.allocationNumber, error: null, requestedAt: null, decidedAt: null };
  const jobs: { kind: string }[] = [];
  if (eligibility.required && draft.allocationNumber) {
    allocation = { status: 'granted', number: draft.allocationNumber, error: null, requestedAt: null, decidedAt: ids.issuedAt };
  } else if (eligibility.required) {
    if (business.requireAllocation) throw new Error('seed: this business requires allocation numbers; the seed does not request them');
    allocation = { status: 'pending', number: null, error: null, requestedAt: null, decidedAt: null };
    warnings.push({
      code: 'allocation_missing',
      message: `an allocation number is required (amount before VAT above ${eligibility.threshold / 100} NIS); it is being requested from the tax authority`,
    });
    jobs.push({ kind: 'document.allocation' });
  }
  jobs.push({ kind: 'document.render' });
  const lines = draft.lines.map((l, i) => ({ ...l, amount: totals.lineAmounts[i] }));
  const snapshot: DocumentSnapshot = {
    docType: draft.docType,
    docNumber: ids.docNumber,
    documentDate: draft.documentDate,
    valueDate: draft.valueDate,
    issuedAt: ids.issuedAt,
    dealer: {
      name: business.name,
      taxId: business.taxId,
      dealerType: business.dealerType,
      address: business.address,
      phone: business.phone,
      email: business.email,
    },
    branding: { ...business.branding },
    party,
    lines,
    payments: draft.payments,
    priceMode: draft.priceMode,
    vatRateBp: totals.vatRateBp,
    vatExemptionReason: draft.vatExemptionReason,
    totals: {
      totalExVat: totals.totalExVat,
      vatAmount: totals.vatAmount,
      totalIncVat: totals.totalIncVat,
      discountAmount: totals.discountAmount,
      withholdingAmount: totals.withholdingAmount,
    },
    note: draft.note,
    allocationNumber: draft.allocationNumber,
    linkedDocument: null,
    metadata: draft.metadata,
    currency: 'ILS',
    exchangeRate: null,
    exchangeRateDate: null,
    exchangeRateSource: null,
    ils: {
      totalExVat: totals.totalExVat,
      vatAmount: totals.vatAmount,
      totalIncVat: totals.totalIncVat,
      discountAmount: totals.discountAmount,
      withholdingAmount: totals.withholdingAmount,
    },
    language: 'he',
  };
  const issued: DocumentRow = {
    ...draft,
    status: 'issued',
    docNumber: ids.docNumber,
    party,
    lines,
    vatRateBp: totals.vatRateBp,
    discountAmount: totals.discountAmount,
    totalExVat: totals.totalExVat,
    vatAmount: totals.vatAmount,
    totalIncVat: totals.totalIncVat,
    allocation,
    warnings,
    snapshot,
    issuedAt: ids.issuedAt,
    updatedAt: ids.issuedAt,
  };
  return { draft, issued, jobs };
}

const j = (v: unknown) => JSON.stringify(v);

// newId's format (src/platform/ids.ts), with the random part drawn from a pool of random bytes
// rather than one randomBytes call per id (a third of the time of an id).
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
let pool = randomBytes(0);
let at = 0;
function seedId(prefix: IdPrefix, ms: number): string {
  if (at + 16 > pool.length) {
    pool = randomBytes(1 << 16);
    at = 0;
  }
  let time = '';
  for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) time = ALPHABET[t % 32] + time;
  let rand = '';
  for (let i = 0; i < 16; i++) rand += ALPHABET[pool[at++] & 31];
  return `${prefix}_${time}${rand}`;
}

function documentLine(d: DocumentRow): string {
  return row([
    d.id,
    d.businessId,
    d.status,
    d.docType,
    d.docNumber,
    d.partyId,
    j(d.party),
    d.priceMode,
    j(d.lines),
    j(d.payments),
    d.note,
    d.documentDate,
    d.valueDate,
    d.vatRateBp,
    d.vatExemptionReason,
    d.discountAmount,
    d.withholdingAmount,
    d.totalExVat,
    d.vatAmount,
    d.totalIncVat,
    d.externalRef,
    d.requestHash,
    d.allocationNumber,
    d.allocation === null ? null : j(d.allocation),
    j(d.warnings),
    d.snapshot === null ? null : j(d.snapshot),
    d.issuedAt,
    d.createdByKeyId,
    d.createdAt,
    d.updatedAt,
  ]);
}

/** The audit chain of one business, continued in memory from its head. */
class Chain {
  constructor(
    readonly chain: string,
    public prev: string,
    readonly actor: Actor,
    readonly businessId: string,
  ) {}
  rows = 0;
  append(out: string[], { at, action, entityId, after }: { at: string; action: string; entityId: string; after: unknown }): void {
    const fields = {
      id: seedId('aud', Date.parse(at)),
      chain: this.chain,
      at,
      accountId: this.actor.accountId,
      keyId: this.actor.keyId,
      businessId: this.businessId,
      action,
      entityType: 'document',
      entityId,
      before: null,
      // plain(after) is after itself: the rows are built from JSON values only (no undefined, no Date).
      after,
    };
    const hash = auditHash(this.prev, fields);
    out.push(
      row([fields.id, fields.chain, at, fields.accountId, fields.keyId, fields.businessId, action, 'document', entityId, null, j(after), this.prev, hash]),
    );
    this.prev = hash;
    this.rows++;
  }
}

async function copyRows(client: PoolClient, table: string, columns: string[], lines: string[]): Promise<void> {
  if (lines.length === 0) return;
  const stream = client.query(copyFrom(`COPY ${table}(${columns.join(', ')}) FROM STDIN`));
  const done = once(stream, 'finish');
  const errored = once(stream, 'error').then(([e]) => {
    throw e;
  });
  // Chunks of ~1 MB: fewer writes, bounded buffers.
  let chunk = '';
  for (const l of lines) {
    chunk += l;
    if (chunk.length > 1 << 20) {
      if (!stream.write(chunk)) await Promise.race([once(stream, 'drain'), errored]);
      chunk = '';
    }
  }
  stream.end(chunk);
  await Promise.race([done, errored]);
}

const DAY_MS = 86_400_000;
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** Creates `n` saved parties (through the parties service, audit rows included), dated `at`. */
export async function seedParties(
  database: Database,
  { businessId, actor, n, at, seed = 17 }: { businessId: string; actor: Actor; n: number; at: Date; seed?: number },
): Promise<PartyView[]> {
  const r = prng(seed * 7919 + 1);
  const out: PartyView[] = [];
  for (let i = 0; i < n; i += 200) {
    await database.db.transaction(async (tx) => {
      for (let k = i; k < Math.min(n, i + 200); k++) {
        const body = { name: `${personName(r)} ${k + 1}`, kind: 'customer' as const, address: r.next() < 0.5 ? `${r.pick(CITIES)} ${r.int(1, 200)}` : null };
        out.push(await insertParty(tx, { at, actor, businessId, party: newPartyFrom(body) }));
      }
    });
  }
  return out;
}

export async function readBusiness(database: Database, businessId: string): Promise<BusinessRecord> {
  const r = await queryOne<Record<string, unknown>>(database.db, sql`SELECT * FROM businesses WHERE id = ${businessId}`);
  if (!r) throw new Error(`seed: no business ${businessId}`);
  return toBusinessRecord(r);
}

export async function seedDocuments(database: Database, o: SeedOptions): Promise<SeedResult> {
  const t0 = performance.now();
  const business = await readBusiness(database, o.businessId);
  const perDay = o.perDay ?? DOCUMENTS_PER_BUSINESS_PER_DAY;
  const lastDay = o.lastDay ?? israelDate(new Date(Date.now() - DAY_MS));
  const count = o.bodies ? o.bodies.length : o.count;
  const days = Math.ceil(count / perDay);
  const firstDay = addDays(lastDay, -(days - 1));
  const batchSize = o.batch ?? 20_000;
  const actor: Actor = o.actor ?? { accountId: business.accountId, keyId: business.createdByKeyId };
  const r = prng(o.seed ?? 17);

  const parties = await seedParties(database, {
    businessId: business.id,
    actor,
    n: o.parties ?? (o.bodies ? 0 : 500),
    at: new Date(`${addDays(firstDay, -1)}T06:00:00.000Z`),
    seed: o.seed,
  });
  const partyIds = parties.map((p) => p.id);
  // Every saved party of the business (explicit bodies may name any of them).
  const savedParties = new Map((await listParties(database.db, business.id)).map((p) => [p.id, p]));

  const chainName = `biz:${business.id}`;
  const slotMs = Math.floor((10 * 3600_000) / perDay);
  const byDocType: Record<number, { first: number; last: number }> = {};
  let refSeq = 0;
  let done = 0;
  let auditRows = 0;
  const phases: Record<string, number> = {};
  let mark = performance.now();
  const phase = (name: string) => {
    const now = performance.now();
    phases[name] = (phases[name] ?? 0) + (now - mark);
    mark = now;
  };
  const client = await database.pool.connect();
  try {
    // Issued documents per business and Israel month (migration 0010), where that counter exists.
    // Documents are issued 06:00–16:00 UTC: their Israel month is their document date's.
    const monthCounts = (await client.query(`SELECT to_regclass('document_month_counts') IS NOT NULL AS ok`)).rows[0].ok === true;
    const replica = o.replica !== false && (await client.query(`SELECT rolsuper FROM pg_roles WHERE rolname = current_user`)).rows[0]?.rolsuper === true;
    while (done < count) {
      const n = Math.min(batchSize, count - done);
      await client.query('BEGIN');
      try {
        // As a restore does: the rows are complete and consistent by construction, so the per-row
        // triggers (the audit head's, 0010; foreign keys) are skipped where the role may (a superuser);
        // the head is moved below. Otherwise they fire, which costs several times the COPY.
        if (replica) await client.query('SET LOCAL session_replication_role = replica');
        // The locks issuing takes: the series' counters (takeNextNumber) and the chain head (appendAudit).
        const types: DocType[] = [305, 320, 400];
        await client.query(
          `INSERT INTO document_counters(business_id, doc_type, start_number, last_number)
           SELECT $1, t, 1, NULL FROM unnest($2::int[]) AS t ON CONFLICT (business_id, doc_type) DO NOTHING`,
          [business.id, types],
        );
        const counters = await client.query<{ doc_type: number; start_number: number; last_number: number | null }>(
          `SELECT doc_type, start_number, last_number FROM document_counters WHERE business_id = $1 AND doc_type = ANY($2::int[]) ORDER BY doc_type FOR UPDATE`,
          [business.id, types],
        );
        const next = new Map<number, number>();
        for (const c of counters.rows) next.set(Number(c.doc_type), Number(c.last_number ?? Number(c.start_number) - 1) + 1);
        await client.query(`INSERT INTO audit_chain_heads(chain, last_seq, last_hash) VALUES ($1, 0, $2) ON CONFLICT (chain) DO NOTHING`, [
          chainName,
          '0'.repeat(64),
        ]);
        const head = await client.query<{ last_hash: string }>(`SELECT last_hash FROM audit_chain_heads WHERE chain = $1 FOR UPDATE`, [chainName]);
        const chain = new Chain(chainName, head.rows[0].last_hash, actor, business.id);

        // The ledger's entry counter (postEntry takes it under the row's lock, as here).
        const ledger = await client.query<{ last_entry_no: string }>(`SELECT last_entry_no FROM ledger_counters WHERE business_id = $1 FOR UPDATE`, [
          business.id,
        ]);
        let entryNo = Number(ledger.rows[0]?.last_entry_no ?? 0);
        const entryLines: string[] = [];
        const lineLines: string[] = [];
        const accountCodes = new Set<string>();
        const partyAccounts = new Map<string, ReturnType<typeof documentEntryOf>['partyAccounts'][number]>();

        phase('lock');
        const docLines: string[] = [];
        const auditLines: string[] = [];
        const eventLines: string[] = [];
        const jobLines: string[] = [];
        const opened = new Map<string, number>();
        const first = new Map<number, number>();
        for (let i = 0; i < n; i++) {
          const g = done + i;
          const given = o.bodies?.[g];
          if (given && !given.documentDate) throw new Error('seed: an explicit body needs its documentDate');
          const day = given ? given.documentDate! : addDays(firstDay, Math.floor(g / perDay));
          const createdMs = Date.parse(`${day}T06:00:00.000Z`) + (g % perDay) * slotMs;
          const createdAt = new Date(createdMs).toISOString();
          const issuedAt = new Date(createdMs + 250).toISOString();
          const body = given
            ? given
            : draftBody(r, {
                business,
                partyIds,
                documentDate: day,
                externalRef: r.next() < 0.9 ? `${r.pick(REF_PREFIXES)}${String(++refSeq).padStart(8, '0')}` : null,
              });
          const docNumber = next.get(body.docType)!;
          next.set(body.docType, docNumber + 1);
          if (!first.has(body.docType)) first.set(body.docType, docNumber);
          const rows = issuedRows(business, { savedParties, keyId: actor.keyId, body, ids: { id: seedId('doc', createdMs), createdAt, issuedAt, docNumber } });
          const d = rows.issued;
          docLines.push(documentLine(d));
          chain.append(auditLines, { at: createdAt, action: 'document.create', entityId: d.id, after: documentView(rows.draft) });
          const view = documentView(d);
          chain.append(auditLines, { at: issuedAt, action: 'document.issue', entityId: d.id, after: view });
          const data = {
            documentId: d.id,
            docType: d.docType,
            docNumber: d.docNumber,
            totalIncVat: d.totalIncVat,
            currency: d.currency,
            totalIncVatIls: view.ils?.totalIncVat ?? d.totalIncVat,
            partyName: view.party?.name ?? null,
            externalRef: d.externalRef,
          };
          eventLines.push(
            row([seedId('evt', createdMs + 250), 'document.issued', business.accountId, business.id, j(data), issuedAt, o.pending ? null : issuedAt]),
          );
          const entry = documentEntryOf(d.snapshot!, business.dealerType);
          if (entry.lines.length > 0) {
            const entryId = seedId('je', createdMs + 250);
            entryLines.push(
              row([
                entryId,
                business.id,
                ++entryNo,
                entry.date,
                'document',
                d.id,
                entry.reference,
                entry.referenceDocType,
                [...entry.description].slice(0, 50).join(''), // journal_post keeps the first 50 characters
                actor.keyId,
                issuedAt,
              ]),
            );
            entry.lines.forEach((l, k) => {
              lineLines.push(row([entryId, k + 1, business.id, l.account, l.side, l.amount]));
              accountCodes.add(l.account);
            });
            for (const pa of entry.partyAccounts) partyAccounts.set(pa.code, pa);
          }
          for (const job of rows.jobs) {
            if (o.pending || job.kind === 'document.allocation')
              jobLines.push(row([seedId('job', createdMs + 250), job.kind, business.id, d.id, '{}', issuedAt, issuedAt]));
          }
          opened.set(day, (opened.get(day) ?? 0) + 1);
        }
        phase('generate');
        await copyRows(client, 'documents', DOC_COLUMNS, docLines);
        phase('copy documents');
        await copyRows(client, 'audit_log', AUDIT_COLUMNS, auditLines);
        phase('copy audit_log');
        await copyRows(client, 'outbox_events', EVENT_COLUMNS, eventLines);
        await copyRows(client, 'jobs', JOB_COLUMNS, jobLines);
        phase('copy events, jobs');
        // The ledger: the accounts first (lines refer to them), then entries and their lines, then the counter.
        const accounts = accountRows(business.dealerType, accountCodes, [...partyAccounts.values()]);
        const firstAt = `${firstDay}T06:00:00.000Z`;
        await client.query(
          `INSERT INTO ledger_accounts(business_id, code, name, kind, trial_balance_code, trial_balance_name, party_id, created_at, updated_at)
           SELECT $1, a.code, a.name, a.kind, a.trial_balance_code, a.trial_balance_name, a.party_id, $3, $3
             FROM jsonb_to_recordset($2::jsonb) AS a(code text, name text, kind text, trial_balance_code text, trial_balance_name text, party_id text)
           ON CONFLICT (business_id, code) DO NOTHING`,
          [business.id, JSON.stringify(accounts), firstAt],
        );
        await copyRows(client, 'journal_entries', ENTRY_COLUMNS, entryLines);
        await copyRows(client, 'journal_lines', LINE_COLUMNS, lineLines);
        const before = Number(ledger.rows[0]?.last_entry_no ?? 0);
        if (entryNo > before) {
          if (replica) {
            await client.query(
              `INSERT INTO ledger_counters(business_id, last_entry_no) VALUES ($1, $2)
               ON CONFLICT (business_id) DO UPDATE SET last_entry_no = EXCLUDED.last_entry_no`,
              [business.id, entryNo],
            );
          } else {
            // The counter's trigger lets it move by one at a time only (migration 0015).
            await client.query(
              `INSERT INTO ledger_counters(business_id, last_entry_no) VALUES ($1, 1) ON CONFLICT (business_id) DO UPDATE SET last_entry_no = ledger_counters.last_entry_no + 1`,
              [business.id],
            );
            await client.query(
              `DO $$ BEGIN FOR i IN 1..${entryNo - before - 1} LOOP UPDATE ledger_counters SET last_entry_no = last_entry_no + 1 WHERE business_id = '${business.id.replace(/'/g, "''")}'; END LOOP; END $$`,
            );
          }
        }
        phase('copy ledger');

        for (const [t, nx] of next) {
          if (!first.has(t)) continue;
          // Behind the triggers the counter jumps to the batch's last number; where they fire, it moves one
          // number at a time, as issuing moves it (document_counters_forward, migration 0028, checks each step).
          if (replica) await client.query(`UPDATE document_counters SET last_number = $3 WHERE business_id = $1 AND doc_type = $2`, [business.id, t, nx - 1]);
          else await client.query(`SELECT count(next_number($1, $2)) FROM generate_series(1, $3::int - $4::int)`, [business.id, t, nx, first.get(t)!]);
          byDocType[t] = { first: byDocType[t]?.first ?? first.get(t)!, last: nx - 1 };
        }
        const last = await client.query<{ seq: string; hash: string }>(`SELECT seq, hash FROM audit_log WHERE chain = $1 ORDER BY seq DESC LIMIT 1`, [
          chainName,
        ]);
        if (last.rows[0].hash !== chain.prev) throw new Error('seed: the chain head moved under the batch');
        // (Where the trigger audit_log_move_head of migration 0010 exists, it has moved the head already.)
        await client.query(`UPDATE audit_chain_heads SET last_seq = $2, last_hash = $3 WHERE chain = $1 AND last_seq < $2`, [
          chainName,
          last.rows[0].seq,
          chain.prev,
        ]);
        const daysOpened = [...opened.keys()];
        const counts = daysOpened.map((d) => opened.get(d)!);
        for (const [subject, metric] of [
          [`biz:${business.id}`, 'documents_opened'],
          [`biz:${business.id}`, 'documents_issued'],
        ]) {
          await client.query(
            `INSERT INTO usage_daily(day, subject, metric, count) SELECT d, $1, $2, c FROM unnest($3::date[], $4::bigint[]) AS u(d, c)
             ON CONFLICT (subject, metric, day) DO UPDATE SET count = usage_daily.count + EXCLUDED.count`,
            [subject, metric, daysOpened, counts],
          );
        }
        if (monthCounts) {
          const months = new Map<string, number>();
          for (const [d, c] of opened) months.set(`${d.slice(0, 8)}01`, (months.get(`${d.slice(0, 8)}01`) ?? 0) + c);
          await client.query(
            `INSERT INTO document_month_counts(business_id, month, count) SELECT $1, m, c FROM unnest($2::date[], $3::bigint[]) AS u(m, c)
             ON CONFLICT (business_id, month) DO UPDATE SET count = document_month_counts.count + EXCLUDED.count`,
            [business.id, [...months.keys()], [...months.values()]],
          );
        }
        await client.query('COMMIT');
        phase('counters, head, usage, commit');
        auditRows += chain.rows;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
      done += n;
      o.onProgress?.(done, count, performance.now() - t0);
    }
    // The planner's statistics for the new rows (the list and export plans depend on them).
    await client.query('ANALYZE documents');
    await client.query('ANALYZE audit_log');
    phase('analyze');
  } finally {
    client.release();
  }
  const ms = performance.now() - t0;
  return {
    phasesMs: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, Math.round(v)])),
    documents: done,
    auditRows,
    firstDay,
    lastDay: addDays(firstDay, days - 1),
    byDocType,
    partyIds,
    ms,
    perSecond: Math.round((done * 1000) / ms),
  };
}
