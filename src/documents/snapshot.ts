/**
 * The shapes other areas read: the frozen snapshot stored at issue (`documents.snapshot`), the
 * stored row, and the reader. PDF rendering, the OPENFRMT export and the allocation lifecycle
 * depend on these; change them only backwards-compatibly.
 */
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { prepared, queryOne } from '../platform/db/sql.ts';
import { rowReader, type Readable } from '../platform/db/row-reader.ts';
import { documents } from './tables.ts';
import { notFound } from '../platform/errors.ts';
import type { BusinessRecord, Section46Approval, StoredBranding } from '../businesses/index.ts';
import type { Metadata } from '../platform/metadata.ts';
import { shekelFigures } from './currency.ts';
import type { DocType, Totals } from './figures.ts';
import type { AllocationStatus, DocumentLanguage, ExchangeRateSource, PriceMode, VatExemptionReason } from './lists.ts';

export type { DocType, Totals } from './figures.ts';
export type { AllocationStatus, DocumentLanguage, ExchangeRateSource, PriceMode, VatExemptionReason } from './lists.ts';

/** Integer payment method codes (decisions.md); 91–93 are payment apps, exported as 9. */
export const PAYMENT_METHOD_CODES = [1, 2, 3, 4, 5, 8, 9, 91, 92, 93] as const;
export type PaymentMethodCode = (typeof PAYMENT_METHOD_CODES)[number];
/** The names the API takes for them (documents' payments, supplier payments). */
export const PAYMENT_METHOD_NAMES = {
  cash: 1,
  check: 2,
  cheque: 2,
  card: 3,
  credit: 3,
  transfer: 4,
  bank_transfer: 4,
  voucher: 5,
  standing_order: 8,
  other: 9,
  bit: 91,
  paybox: 92,
  payment_app: 93,
  app: 93,
} as const satisfies Record<string, PaymentMethodCode>;
export type PaymentMethodName = keyof typeof PAYMENT_METHOD_NAMES;

export interface DocumentParty {
  /** The saved party, or null for an inline party. */
  partyId: string | null;
  /** The saved party's running key (C00001...), or null. */
  key: string | null;
  name: string;
  taxId: string | null;
  phone: string | null;
  email: string | null;
  address: string | null;
}

export interface DocumentLine {
  description: string;
  quantity: number;
  /** Agorot; VAT-inclusive when the document's priceMode is `gross`. */
  unitPriceExVat: number;
  sku: string | null;
  unit: string;
  lineDiscount: number;
  /** round(quantity × unitPriceExVat) − lineDiscount, agorot (gross in `gross` mode). */
  amount: number;
  /** A foreign-currency document's line in agorot, frozen at issue (absent: a shekel document, or issued before issue 29). */
  amountIls?: number;
  /** A line converted from another document's line (POST …/convert, issue 30): OPENFRMT D110 1256/1257. */
  source?: LineSource;
}

/** The issued document and line a converted line came from; `index` counts the source's lines from 0. */
export interface LineSource {
  documentId: string;
  docType: DocType;
  docNumber: number;
  index: number;
}

export interface DocumentPayment {
  method: PaymentMethodCode;
  amount: number;
  dueDate: string | null;
  bankCode: string | null;
  branchCode: string | null;
  accountNumber: string | null;
  checkNumber: string | null;
  cardCompany: string | null;
  cardName: string | null;
  cardTxType: string | null;
  /** Issue 21: a payment in another currency than the document's (absent: the document's). `amount` stays in the document currency's minor units. */
  currency?: string;
  exchangeRate?: string | null;
  /** The payment's amount in its own currency's minor units, when `currency` differs. */
  originalAmount?: number;
  /** A foreign-currency document's payment in agorot, frozen at issue (absent: a shekel document, or issued before issue 29). */
  amountIls?: number;
}

/**
 * A document's currency (issue 21): amounts are in its minor units; `exchangeRate` is shekels for one
 * unit of the currency as a decimal string; all null/`ILS` for a shekel document.
 */
export interface DocumentCurrency {
  currency: string;
  exchangeRate: string | null;
  exchangeRateDate: string | null;
  exchangeRateSource: ExchangeRateSource | null;
}

export interface LinkedDocument {
  id: string;
  docType: DocType;
  docNumber: number;
}

/** Everything a printed document says, frozen at issue. Never changes afterwards. */
export interface DocumentSnapshot {
  docType: DocType;
  docNumber: number;
  documentDate: string;
  valueDate: string;
  issuedAt: string;
  dealer: Dealer;
  /** The business's branding at issue, or the `branding` override given in the issue body. */
  branding: StoredBranding;
  /** Null for an anonymous receipt. */
  party: DocumentParty | null;
  lines: DocumentLine[];
  payments: DocumentPayment[];
  priceMode: PriceMode;
  vatRateBp: number;
  vatExemptionReason: VatExemptionReason | null;
  totals: Totals;
  note: string | null;
  /** The allocation number held at issue (a later one is in documents.allocation_number). */
  allocationNumber: string | null;
  /** For a credit note (330) or a negative receipt (400): the document it reverses. */
  linkedDocument: LinkedDocument | null;
  /** A credit note's part of its original (issue 29; absent: the whole, as every credit before it). */
  credited?: CreditedPart;
  /** The caller's metadata at issue (absent from snapshots taken before it existed). Never printed or exported. */
  metadata?: Metadata;
  /** Issue 21; absent from older snapshots, which are shekel documents in Hebrew. `totals` are in the currency's minor units. */
  currency?: string;
  exchangeRate?: string | null;
  exchangeRateDate?: string | null;
  exchangeRateSource?: ExchangeRateSource | null;
  /** The five totals in agorot (equal to `totals` for ILS). */
  ils?: Totals;
  language?: DocumentLanguage;
  /** A donation receipt (405): the organisation's section 46 approval in force on its date, as printed. */
  section46?: Section46Approval;
}

/**
 * What a credit note credits of the document it corrects (documents/partial-credit.ts): the whole, chosen
 * lines and quantities (`index` of the original's lines), an amount before VAT, or what earlier credits left.
 */
export type CreditedPart =
  { kind: 'whole' } | { kind: 'lines'; lines: { index: number; quantity: number }[] } | { kind: 'amount'; amount: number } | { kind: 'remainder' };

export interface AllocationState {
  status: AllocationStatus;
  number: string | null;
  error: string | null;
  requestedAt: string | null;
  decidedAt: string | null;
}

export interface DocumentWarning {
  code: string;
  message: string;
}

export interface PdfFiles {
  origin: { fileId: string; slug: string };
  copy: { fileId: string; slug: string };
}

/**
 * A `documents` row, typed by its one definition (tables.ts), without the list's search text. Amounts in the document currency's
 * minor units (agorot for ILS), dates `YYYY-MM-DD`, times ISO 8601.
 */
export type DocumentRow = Omit<Readable<typeof documents.$inferSelect>, 'searchText'>;

/** The issuing business as a document prints it (frozen in the snapshot at issue). */
export type Dealer = Pick<BusinessRecord, 'name' | 'taxId' | 'dealerType' | 'address' | 'phone' | 'email'>;

export function dealerOf(b: Dealer): Dealer {
  return { name: b.name, taxId: b.taxId, dealerType: b.dealerType, address: b.address, phone: b.phone, email: b.email };
}

/** A raw `documents` row (any statement's `SELECT *` or `RETURNING *`) as a DocumentRow. */
export const toDocumentRow = rowReader<typeof documents, 'searchText'>(documents);

const readColumns = new Map<string, SQL>();
/**
 * The select list a DocumentRow is read from (`alias.` before each column when given): the stored
 * columns, with `pdf_files` read from the PDFs' public links, which the render job writes when it
 * publishes them (migration 0040: publishing no longer rewrites the document's row; rows published
 * before hold them in the column). Named columns, as columnList's, keep prepared statements valid
 * when a migration adds a column.
 */
export function documentColumns(alias = ''): SQL {
  let list = readColumns.get(alias);
  if (!list) {
    const row = alias ? `${alias}.` : 'documents.';
    const names = Object.values(getTableColumns(documents))
      .filter((column) => column.generated === undefined)
      .map((column) =>
        column.name === 'pdf_files'
          ? `coalesce(${row}"pdf_files", (SELECT jsonb_object_agg(l.variant, jsonb_build_object('fileId', l.file_id, 'slug', l.slug)) FROM pdf_links l WHERE l.document_id = ${row}"id")) AS "pdf_files"`
          : `${alias ? row : ''}"${column.name}"`,
      );
    readColumns.set(alias, (list = sql.raw(names.join(', '))));
  }
  return list;
}

/** Reads one document of a business (drafts included); another business's document is not found. */
export async function getDocumentRow(ex: Executor, businessId: string, id: string, forUpdate = false): Promise<DocumentRow> {
  const row = await findDocumentRow(ex, businessId, id, forUpdate);
  if (!row) throw notFound('document');
  return row;
}

export async function findDocumentRow(ex: Executor, businessId: string, id: string, forUpdate = false): Promise<DocumentRow | undefined> {
  const r = await queryOne<Record<string, unknown>>(
    ex,
    prepared(
      'document_row',
      forUpdate
        ? sql`SELECT ${documentColumns()} FROM documents WHERE id = ${id} AND business_id = ${businessId} FOR UPDATE`
        : sql`SELECT ${documentColumns()} FROM documents WHERE id = ${id} AND business_id = ${businessId}`,
    ),
  );
  return r ? toDocumentRow(r) : undefined;
}

/** Reads a document by id alone (background jobs, which know only the id). */
export async function getDocumentById(ex: Executor, id: string): Promise<DocumentRow | undefined> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT ${documentColumns()} FROM documents WHERE id = ${id}`);
  return r ? toDocumentRow(r) : undefined;
}

/** Reads a document by id with its business's account (a background job's audit row and event name it). */
export async function getDocumentWithAccount(ex: Executor, id: string): Promise<(DocumentRow & { accountId: string }) | undefined> {
  const r = await queryOne<Record<string, unknown>>(
    ex,
    prepared(
      'document_with_account',
      sql`SELECT ${documentColumns('d')}, b.account_id FROM documents d JOIN businesses b ON b.id = d.business_id WHERE d.id = ${id}`,
    ),
  );
  return r ? { ...toDocumentRow(r), accountId: String(r.account_id) } : undefined;
}

/** The API's Document: the row's public fields, plus the files of its PDFs. */
export type DocumentView = Pick<
  DocumentRow,
  | 'id'
  | 'businessId'
  | 'status'
  | 'docType'
  | 'docNumber'
  | 'allocationNumber'
  | 'party'
  | 'priceMode'
  | 'lines'
  | 'payments'
  | 'note'
  | 'documentDate'
  | 'valueDate'
  | 'vatRateBp'
  | 'vatExemptionReason'
  | 'totalExVat'
  | 'vatAmount'
  | 'totalIncVat'
  | 'discountAmount'
  | 'withholdingAmount'
  | 'linkedDocumentId'
  | 'cancelledByDocumentId'
  | 'externalRef'
  | 'metadata'
  | 'warnings'
  | 'allocation'
  | 'printCount'
  | 'issuedAt'
  | 'createdAt'
  | 'currency'
  | 'exchangeRate'
  | 'exchangeRateDate'
  | 'exchangeRateSource'
  | 'language'
> & {
  files: { origin: string; copy: string } | null;
  ils: Totals | null;
  /** The documents its lines were converted from (issue 30), in the order of its lines. */
  convertedFrom: DocumentReference[];
  /** The issued documents converted from it (GET of one document only). */
  convertedTo?: DocumentReference[];
};

/** Another document, named as the API and the printed page name it. */
export interface DocumentReference {
  id: string;
  docType: DocType;
  docNumber: number;
}

/** The distinct sources of the lines, first seen first. */
export function convertedFromOf(lines: readonly DocumentLine[]): DocumentReference[] {
  const out: DocumentReference[] = [];
  for (const l of lines) {
    if (l.source && !out.some((r) => r.id === l.source!.documentId))
      out.push({ id: l.source.documentId, docType: l.source.docType, docNumber: l.source.docNumber });
  }
  return out;
}

const totalsOfRow = (d: DocumentRow): Totals => ({
  totalExVat: d.totalExVat,
  vatAmount: d.vatAmount,
  totalIncVat: d.totalIncVat,
  discountAmount: d.discountAmount,
  withholdingAmount: d.withholdingAmount,
});

/**
 * The shekel totals: frozen in the snapshot of an issued document (a shekel document from before
 * issue 21 has none: its totals are shekels); on a draft, computed when its rate is known.
 */
export function ilsOf(d: DocumentRow): Totals | null {
  if (d.snapshot) return d.snapshot.ils ?? d.snapshot.totals;
  if (d.currency === 'ILS') return totalsOfRow(d);
  return d.exchangeRate === null ? null : shekelFigures({ ...d, totals: totalsOfRow(d) }, d.currency, d.exchangeRate).ils;
}

/**
 * The Document JSON of a row. An issued document shows its frozen snapshot (party, lines,
 * payments, totals, rate), so nothing edited later can change what it says.
 */
export function documentView(d: DocumentRow): DocumentView {
  const snap = d.snapshot;
  return {
    id: d.id,
    businessId: d.businessId,
    status: d.status,
    docType: d.docType,
    docNumber: d.docNumber,
    allocationNumber: d.allocationNumber,
    party: snap ? snap.party : d.party,
    priceMode: d.priceMode,
    lines: snap ? snap.lines : d.lines,
    payments: snap ? snap.payments : d.payments,
    note: d.note,
    documentDate: d.documentDate,
    valueDate: d.valueDate,
    vatRateBp: snap ? snap.vatRateBp : d.vatRateBp,
    vatExemptionReason: d.vatExemptionReason,
    totalExVat: d.totalExVat,
    vatAmount: d.vatAmount,
    totalIncVat: d.totalIncVat,
    discountAmount: d.discountAmount,
    withholdingAmount: d.withholdingAmount,
    currency: d.currency,
    exchangeRate: d.exchangeRate,
    exchangeRateDate: d.exchangeRateDate,
    exchangeRateSource: d.exchangeRateSource,
    ils: ilsOf(d),
    language: d.language,
    linkedDocumentId: d.linkedDocumentId,
    cancelledByDocumentId: d.cancelledByDocumentId,
    externalRef: d.externalRef,
    metadata: snap?.metadata ?? d.metadata,
    warnings: (d.warnings ?? []).map((w) => ({ code: String(w.code), message: String(w.message ?? '') })),
    allocation: d.allocation
      ? {
          status: d.allocation.status,
          number: d.allocation.number ?? null,
          error: d.allocation.error ?? null,
          requestedAt: d.allocation.requestedAt ?? null,
          decidedAt: d.allocation.decidedAt ?? null,
        }
      : null,
    files: d.pdfFiles ? { origin: d.pdfFiles.origin.fileId, copy: d.pdfFiles.copy.fileId } : null,
    printCount: d.printCount,
    issuedAt: d.issuedAt,
    createdAt: d.createdAt,
    convertedFrom: convertedFromOf(snap ? snap.lines : d.lines),
  };
}
