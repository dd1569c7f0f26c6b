/**
 * The stored row, its reader and the document's view (the snapshot's types are in snapshot-types.ts). PDF rendering,
 * the OPENFRMT export and the allocation lifecycle depend on these; change them only backwards-compatibly.
 */
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { prepared, query, queryOne } from '../platform/db/sql.ts';
import { rowReader, type Readable } from '../platform/db/row-reader.ts';
import { documents } from './tables.ts';
import { notFound } from '../platform/errors.ts';
import { shekelFigures } from './currency.ts';
import type { DocType, Totals } from './figures.ts';
import type { Dealer, DocumentLine } from './snapshot-types.ts';

export type { DocType, Totals } from './figures.ts';

/**
 * A `documents` row, typed by its one definition (tables.ts), without the list's search text. Amounts in the document currency's
 * minor units (agorot for ILS), dates `YYYY-MM-DD`, times ISO 8601.
 */
export type DocumentRow = Omit<Readable<typeof documents.$inferSelect>, 'searchText'>;

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
  return (await getDocumentsWithAccount(ex, [id])).get(id);
}

/** Several documents by id with their businesses' accounts, in one statement (render jobs that run together). */
export async function getDocumentsWithAccount(ex: Executor, ids: string[]): Promise<Map<string, DocumentRow & { accountId: string }>> {
  const rows = await query<Record<string, unknown>>(
    ex,
    prepared(
      'documents_with_account',
      // In a function so that its plan is generic (migration 0068).
      sql`SELECT ${documentColumns('(r.document)')}, r.account_id FROM documents_with_account(${sql.param(ids)}) r`,
    ),
  );
  return new Map(rows.map((r) => [String(r.id), { ...toDocumentRow(r), accountId: String(r.account_id) }]));
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
