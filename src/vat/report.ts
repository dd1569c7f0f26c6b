/**
 * The VAT report of a period, read from the ledger so that it ties to the books exactly: output VAT is
 * credit − debit of account 2200, input VAT debit − credit of 1400, fixed-asset input VAT of 1410 (only
 * the deductible share is ever posted there), over the journal entries dated inside the period (an
 * entry of a document dated in a closed month is dated the first open day, so it counts where the books
 * hold it). Sales by treatment are the revenue accounts' credit − debit over the same entries. Every
 * entry that touches these accounts is one traceable line (listed a page at a time: `vatLines`).
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query, queryOne } from '../platform/db/sql.ts';
import { INPUT_VAT, INPUT_VAT_FIXED_ASSETS, OUTPUT_VAT, type EntrySource } from '../ledger/index.ts';
import { periodOfBusiness, type VatPeriod, type VatReportingPeriod } from './period.ts';

/** Revenue accounts by VAT treatment (src/ledger/chart.ts revenueAccount); 4100 is a patur/ngo dealer's revenue. */
const TREATMENT_OF_ACCOUNT: Readonly<Record<string, Treatment>> = {
  '4000': 'taxable',
  '4010': 'zeroRatedExport',
  '4020': 'eilat',
  '4030': 'exempt',
  '4100': 'exempt',
};
/** A sale's VAT treatment, the closed list the report and its schema read. */
export const TREATMENTS = ['taxable', 'zeroRatedExport', 'eilat', 'exempt'] as const;
export type Treatment = (typeof TREATMENTS)[number];
const VAT_ACCOUNTS = [OUTPUT_VAT, INPUT_VAT, INPUT_VAT_FIXED_ASSETS, ...Object.keys(TREATMENT_OF_ACCOUNT)];

export interface LedgerVatReport {
  period: string;
  kind: VatPeriod['kind'];
  from: string;
  to: string;
  currency: 'ILS';
  source: 'ledger';
  outputVat: number;
  /** Ordinary inputs: account 1400. */
  inputVat: number;
  /** Equipment and other fixed assets: account 1410. */
  inputVatFixedAssets: number;
  /** outputVat − inputVat − inputVatFixedAssets: positive to pay, negative to reclaim. */
  vatPayable: number;
  /** Ex VAT, agorot; `count` = documents whose entries are in the period. */
  sales: { taxable: number; zeroRatedExport: number; eilat: number; exempt: number; count: number };
  /** Recorded expenses (and stornos) that posted input VAT: their amounts ex VAT and their count. */
  inputs: { exVat: number; count: number };
  /** Manual entries and reversals that touch these accounts (included in the figures above). */
  adjustments: { outputVat: number; inputVat: number; inputVatFixedAssets: number; count: number };
  /** The management report's names for the same figures (also answered for `from`/`to`). */
  taxableSales: number;
  zeroRatedOrExemptSales: number;
  fixedAssetInputVat: number;
  otherInputVat: number;
  documents: number;
  expenses: number;
}

export interface VatLine {
  entryNo: number;
  entryId: string;
  entryDate: string;
  source: EntrySource;
  /** The revenue account's treatment, for a sale (null otherwise). */
  treatment: Treatment | null;
  /** Signed agorot: a credit note or a storno is negative. */
  exVat: number;
  outputVat: number;
  inputVat: number;
  inputVatFixedAssets: number;
  document: {
    id: string;
    docType: number;
    docNumber: number;
    date: string;
    partyName: string | null;
    partyTaxId: string | null;
    allocationNumber: string | null;
  } | null;
  expense: {
    id: string;
    supplierName: string;
    supplierTaxId: string | null;
    supplierDocNumber: string | null;
    allocationNumber: string | null;
    date: string;
    storno: boolean;
  } | null;
}

/** Per entry in the period: the net of each VAT and revenue account (credit − debit; inputs debit − credit). */
const perEntry = (businessId: string, p: { from: string; to: string }) => sql`
  SELECT e.id, e.entry_no, e.entry_date::text AS entry_date, e.source, e.document_id, e.expense_id,
    sum(CASE WHEN l.account_code = ${OUTPUT_VAT} THEN (CASE WHEN l.side = 2 THEN l.amount ELSE -l.amount END) ELSE 0 END) AS output_vat,
    sum(CASE WHEN l.account_code = ${INPUT_VAT} THEN (CASE WHEN l.side = 1 THEN l.amount ELSE -l.amount END) ELSE 0 END) AS input_vat,
    sum(CASE WHEN l.account_code = ${INPUT_VAT_FIXED_ASSETS} THEN (CASE WHEN l.side = 1 THEN l.amount ELSE -l.amount END) ELSE 0 END) AS input_fixed,
    sum(CASE WHEN l.account_code = '4000' THEN (CASE WHEN l.side = 2 THEN l.amount ELSE -l.amount END) ELSE 0 END) AS taxable,
    sum(CASE WHEN l.account_code = '4010' THEN (CASE WHEN l.side = 2 THEN l.amount ELSE -l.amount END) ELSE 0 END) AS export,
    sum(CASE WHEN l.account_code = '4020' THEN (CASE WHEN l.side = 2 THEN l.amount ELSE -l.amount END) ELSE 0 END) AS eilat,
    sum(CASE WHEN l.account_code IN ('4030', '4100') THEN (CASE WHEN l.side = 2 THEN l.amount ELSE -l.amount END) ELSE 0 END) AS exempt,
    bool_or(l.account_code IN (${INPUT_VAT}, ${INPUT_VAT_FIXED_ASSETS})) AS has_input
  FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id
  WHERE e.business_id = ${businessId} AND l.business_id = ${businessId} AND e.entry_date BETWEEN ${p.from} AND ${p.to}
    AND l.account_code IN (${sql.join(
      VAT_ACCOUNTS.map((c) => sql`${c}`),
      sql`, `,
    )})
  GROUP BY e.id, e.entry_no, e.entry_date, e.source, e.document_id, e.expense_id`;

const n = (v: unknown) => Number(v ?? 0);

/**
 * The business's own period holding `asked` (a month of a bimonthly business is its two months): resolved
 * here, so that the report, its lines and the PCN874 file agree whoever calls them.
 */
export async function businessVatPeriod(ex: Executor, businessId: string, asked: VatPeriod): Promise<VatPeriod> {
  if (asked.kind === 'bimonthly') return asked;
  const r = await queryOne<{ vat_reporting_period: VatReportingPeriod }>(ex, sql`SELECT vat_reporting_period FROM businesses WHERE id = ${businessId}`);
  return periodOfBusiness(asked, r?.vat_reporting_period ?? 'monthly');
}

export async function ledgerVatReport(ex: Executor, businessId: string, asked: VatPeriod): Promise<LedgerVatReport> {
  const p = await businessVatPeriod(ex, businessId, asked);
  const t = (await queryOne<Record<string, unknown>>(
    ex,
    sql`SELECT coalesce(sum(x.output_vat), 0) AS output_vat, coalesce(sum(x.input_vat), 0) AS input_vat, coalesce(sum(x.input_fixed), 0) AS input_fixed,
          coalesce(sum(x.taxable), 0) AS taxable, coalesce(sum(x.export), 0) AS export, coalesce(sum(x.eilat), 0) AS eilat, coalesce(sum(x.exempt), 0) AS exempt,
          count(*) FILTER (WHERE x.source = 'document') AS documents,
          count(*) FILTER (WHERE x.source = 'expense' AND x.has_input) AS inputs,
          coalesce(sum(ex.amount_ex_vat) FILTER (WHERE x.source = 'expense' AND x.has_input), 0) AS inputs_ex_vat,
          count(*) FILTER (WHERE x.source IN ('manual', 'reversal')) AS adjustments,
          coalesce(sum(x.output_vat) FILTER (WHERE x.source IN ('manual', 'reversal')), 0) AS adj_output,
          coalesce(sum(x.input_vat) FILTER (WHERE x.source IN ('manual', 'reversal')), 0) AS adj_input,
          coalesce(sum(x.input_fixed) FILTER (WHERE x.source IN ('manual', 'reversal')), 0) AS adj_fixed
        FROM (${perEntry(businessId, p)}) x LEFT JOIN expenses ex ON ex.id = x.expense_id`,
  ))!;
  const outputVat = n(t.output_vat);
  const inputVat = n(t.input_vat);
  const inputVatFixedAssets = n(t.input_fixed);
  const sales = { taxable: n(t.taxable), zeroRatedExport: n(t.export), eilat: n(t.eilat), exempt: n(t.exempt), count: n(t.documents) };
  return {
    period: p.period,
    kind: p.kind,
    from: p.from,
    to: p.to,
    currency: 'ILS',
    source: 'ledger',
    outputVat,
    inputVat,
    inputVatFixedAssets,
    vatPayable: outputVat - inputVat - inputVatFixedAssets,
    sales,
    inputs: { exVat: n(t.inputs_ex_vat), count: n(t.inputs) },
    adjustments: { outputVat: n(t.adj_output), inputVat: n(t.adj_input), inputVatFixedAssets: n(t.adj_fixed), count: n(t.adjustments) },
    taxableSales: sales.taxable,
    zeroRatedOrExemptSales: sales.zeroRatedExport + sales.eilat + sales.exempt,
    fixedAssetInputVat: inputVatFixedAssets,
    otherInputVat: inputVat,
    documents: sales.count,
    expenses: n(t.inputs),
  };
}

function treatmentOf(r: Record<string, unknown>): Treatment | null {
  if (r.source !== 'document') return null;
  // The document's one revenue account (a document has one VAT treatment).
  if (n(r.export) !== 0) return 'zeroRatedExport';
  if (n(r.eilat) !== 0) return 'eilat';
  if (n(r.exempt) !== 0) return 'exempt';
  return 'taxable';
}

/** The period's lines in entry order, `take` at a time after entry number `after`. */
export async function vatLines(ex: Executor, businessId: string, asked: VatPeriod, page: { after?: number; take: number }): Promise<VatLine[]> {
  const p = await businessVatPeriod(ex, businessId, asked);
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT x.*, d.doc_type, d.doc_number, d.document_date::text AS document_date, d.snapshot->'party'->>'name' AS party_name, d.snapshot->'party'->>'taxId' AS party_tax_id,
          coalesce(d.allocation_number, d.snapshot->>'allocationNumber') AS allocation_number,
          ex.supplier_name, ex.supplier_tax_id, ex.supplier_doc_number, ex.allocation_number AS supplier_allocation_number, ex.supplier_doc_date::text AS supplier_doc_date,
          ex.amount_ex_vat, ex.reverses_expense_id
        FROM (${perEntry(businessId, p)}) x
        LEFT JOIN documents d ON d.id = x.document_id
        LEFT JOIN expenses ex ON ex.id = x.expense_id
        WHERE x.entry_no > ${page.after ?? 0}
        ORDER BY x.entry_no LIMIT ${page.take}`,
  );
  return rows.map((r) => {
    const isDoc = r.source === 'document';
    const isExpense = r.source === 'expense';
    return {
      entryNo: n(r.entry_no),
      entryId: String(r.id),
      entryDate: String(r.entry_date).slice(0, 10),
      source: r.source as VatLine['source'],
      treatment: treatmentOf(r),
      exVat: isExpense ? n(r.amount_ex_vat) : n(r.taxable) + n(r.export) + n(r.eilat) + n(r.exempt),
      outputVat: n(r.output_vat),
      inputVat: n(r.input_vat),
      inputVatFixedAssets: n(r.input_fixed),
      document: isDoc
        ? {
            id: String(r.document_id),
            docType: n(r.doc_type),
            docNumber: n(r.doc_number),
            date: String(r.document_date).slice(0, 10),
            partyName: (r.party_name as string | null) ?? null,
            partyTaxId: (r.party_tax_id as string | null) ?? null,
            allocationNumber: (r.allocation_number as string | null) ?? null,
          }
        : null,
      expense: isExpense
        ? {
            id: String(r.expense_id),
            supplierName: String(r.supplier_name),
            supplierTaxId: (r.supplier_tax_id as string | null) ?? null,
            supplierDocNumber: (r.supplier_doc_number as string | null) ?? null,
            allocationNumber: (r.supplier_allocation_number as string | null) ?? null,
            date: String(r.supplier_doc_date).slice(0, 10),
            storno: r.reverses_expense_id != null,
          }
        : null,
    };
  });
}

/** Every line of the period (for the PCN874 file), read a page at a time. */
export async function allVatLines(ex: Executor, businessId: string, p: VatPeriod, pageSize = 2000): Promise<VatLine[]> {
  const out: VatLine[] = [];
  for (;;) {
    const page = await vatLines(ex, businessId, p, { after: out.at(-1)?.entryNo ?? 0, take: pageSize });
    out.push(...page);
    if (page.length < pageSize) return out;
  }
}
