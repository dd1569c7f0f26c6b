/**
 * From the VAT report of a period to the PCN874 records (pure), and the check of a file read back
 * against them. The header carries the report's figures, each rounded to whole shekels; each entry
 * carries one document's or expense's figures from the ledger, each rounded. Manual entries on the VAT
 * accounts are in the header's totals (they are in the report) and have no entry of their own.
 */
import { isSale, lastDigits, shekels, type EntryType, type Pcn874Entry, type Pcn874File, type ReadPcn874 } from './pcn874.ts';
import type { LedgerVatReport, VatLine } from './report.ts';

const VAT_ID = /^\d{9}$/;
const identified = (taxId: string | null): taxId is string => !!taxId && VAT_ID.test(taxId) && !/^0+$/.test(taxId);
const ymd = (isoDay: string) => isoDay.replace(/-/g, '');

/**
 * The other side of a sale (Appendix C): zeros for an unidentified customer (L); for an export (Y) the
 * export entry number, or `999999999` for services and intangible goods — pinkas holds no export entry
 * number, so every export is written as one without (docs/vat.md).
 */
const EXPORT_WITHOUT_ENTRY = '999999999';
const PETTY_CASH_ONE_INVOICE = '000000001';
function counterpartyOfSale(type: EntryType, partyTaxId: string | null): string {
  if (type === 'L') return '000000000';
  if (type === 'Y') return EXPORT_WITHOUT_ENTRY;
  return lastDigits(partyTaxId, 9);
}

/**
 * The reference group of a sale: its document's series (the type code, `0305`, `0320`, `0330`), so that 305 #1,
 * 320 #1 and 330 #1 are three references, not one. The circular's Appendix A: "Reference group A(4) — Series etc.";
 * its remarks: the field "enables attribution of reference to branch etc., zero values or internal characters of
 * the submitter (series/branch etc.)". An input's reference is the supplier's number: its group stays zeros.
 */
const seriesGroup = (docType: number) => String(docType).padStart(4, '0');

/** The entry of one line, or null for a line that has none (a manual entry; an expense that posted no input VAT). */
export function entryOfLine(l: VatLine): Pcn874Entry | null {
  if (l.document) {
    const type: EntryType = l.treatment === 'zeroRatedExport' ? 'Y' : identified(l.document.partyTaxId) ? 'S' : 'L';
    return {
      type,
      counterpartyId: counterpartyOfSale(type, l.document.partyTaxId),
      date: ymd(l.document.date),
      refGroup: seriesGroup(l.document.docType),
      refNumber: lastDigits(l.document.docNumber, 9),
      vat: Math.abs(shekels(l.outputVat)),
      exVat: shekels(l.exVat),
      allocation: lastDigits(l.document.allocationNumber, 9),
    };
  }
  if (l.expense) {
    const vat = l.inputVat + l.inputVatFixedAssets;
    if (vat === 0) return null;
    const type: EntryType = identified(l.expense.supplierTaxId) ? 'T' : 'K';
    return {
      type,
      counterpartyId: type === 'K' ? '000000000' : lastDigits(l.expense.supplierTaxId, 9),
      date: ymd(l.expense.date),
      refGroup: '0000',
      // A petty-cash entry's reference number is the number of invoices it holds (Appendix C §3.E): one here.
      refNumber: type === 'K' ? PETTY_CASH_ONE_INVOICE : lastDigits(l.expense.supplierDocNumber, 9),
      vat: Math.abs(shekels(vat)),
      exVat: shekels(l.exVat),
      // T: the supplier invoice's allocation number (the field the 2009 circular kept for "a reference number to be
      // allocated by Sha'am"); an input above the threshold without one deducts nothing and has no entry. K stands
      // for petty cash, an aggregate of invoices (its reference is their count): zeros, as Appendix C has it.
      allocation: type === 'K' ? '000000000' : lastDigits(l.expense.allocationNumber, 9),
    };
  }
  return null;
}

export function pcn874Of(
  vatId: string,
  { report, lines, firstMonth, generated }: { report: LedgerVatReport; lines: VatLine[]; firstMonth: string; generated: string },
): Pcn874File {
  const entries = lines.map(entryOfLine).filter((e): e is Pcn874Entry => e !== null);
  return {
    header: {
      vatId,
      period: firstMonth,
      generated: ymd(generated),
      taxableSales: shekels(report.sales.taxable),
      taxableVat: shekels(report.outputVat),
      salesCount: entries.filter((e) => isSale(e.type)).length,
      zeroOrExemptSales: shekels(report.sales.zeroRatedExport + report.sales.eilat + report.sales.exempt),
      otherInputsVat: shekels(report.inputVat),
      equipmentInputsVat: shekels(report.inputVatFixedAssets),
      inputsCount: entries.filter((e) => !isSale(e.type)).length,
      vatPayable: shekels(report.vatPayable),
    },
    entries,
  };
}

export interface Pcn874Verification {
  ok: boolean;
  problems: string[];
  recordCounts: { header: number; sales: number; inputs: number; closing: number; total: number };
  /** The header as read back (whole shekels). */
  header: ReadPcn874['header'];
  /** The report it must tie to (agorot), and the rule. */
  report: { outputVat: number; inputVat: number; inputVatFixedAssets: number; vatPayable: number; taxableSales: number; zeroRatedOrExemptSales: number };
  rule: string;
}

/**
 * The file read back against the report and its lines: the layout (from the reader), each header
 * amount = the report's figure in agorot rounded to whole shekels, each entry = its line, and the
 * lines' agorot adding up to the report's exactly (with the manual adjustments).
 */
export function verifyPcn874(read: ReadPcn874, vatId: string, report: LedgerVatReport, lines: VatLine[]): Pcn874Verification {
  const problems = [...read.problems];
  const h = read.header;
  const expectHeader = (name: string, got: number | string | undefined, want: number | string) => {
    if (got !== want) problems.push(`header ${name}: the file says ${got}, the VAT report ${want}`);
  };
  if (h) {
    expectHeader('vatId', h.vatId, vatId);
    expectHeader('taxableSales', h.taxableSales, shekels(report.sales.taxable));
    expectHeader('taxableVat', h.taxableVat, shekels(report.outputVat));
    expectHeader('zeroOrExemptSales', h.zeroOrExemptSales, shekels(report.sales.zeroRatedExport + report.sales.eilat + report.sales.exempt));
    expectHeader('otherInputsVat', h.otherInputsVat, shekels(report.inputVat));
    expectHeader('equipmentInputsVat', h.equipmentInputsVat, shekels(report.inputVatFixedAssets));
    expectHeader('vatPayable', h.vatPayable, shekels(report.vatPayable));
  } else {
    problems.push('no header record');
  }
  const expected = lines.map(entryOfLine).filter((e): e is Pcn874Entry => e !== null);
  if (expected.length !== read.entries.length)
    problems.push(`the file holds ${read.entries.length} entries, the period's documents and expenses make ${expected.length}`);
  expected.forEach((want, i) => {
    const got = read.entries[i];
    if (got && JSON.stringify(got) !== JSON.stringify(want))
      problems.push(`entry ${i + 1} (line ${i + 2}): ${JSON.stringify(got)} is not its document's ${JSON.stringify(want)}`);
  });
  // The traceable lines add up to the report in agorot (manual adjustments have no entry of their own).
  const sum = (pick: (l: VatLine) => number) => lines.reduce((a, l) => a + pick(l), 0);
  const ties: [string, number, number][] = [
    ['outputVat', sum((l) => l.outputVat), report.outputVat],
    ['inputVat', sum((l) => l.inputVat), report.inputVat],
    ['inputVatFixedAssets', sum((l) => l.inputVatFixedAssets), report.inputVatFixedAssets],
  ];
  for (const [name, got, want] of ties) if (got !== want) problems.push(`the lines' ${name} adds up to ${got} agorot, the report says ${want}`);
  const sales = read.entries.filter((e) => isSale(e.type)).length;
  return {
    ok: problems.length === 0,
    problems,
    recordCounts: {
      header: h ? 1 : 0,
      sales,
      inputs: read.entries.length - sales,
      closing: read.closingVatId ? 1 : 0,
      total: read.entries.length + (h ? 1 : 0) + (read.closingVatId ? 1 : 0),
    },
    header: h,
    report: {
      outputVat: report.outputVat,
      inputVat: report.inputVat,
      inputVatFixedAssets: report.inputVatFixedAssets,
      vatPayable: report.vatPayable,
      taxableSales: report.sales.taxable,
      zeroRatedOrExemptSales: report.zeroRatedOrExemptSales,
    },
    rule: "each header amount is the VAT report's agorot figure rounded half away from zero to whole shekels; each entry is its document's or expense's ledger figures, rounded the same way",
  };
}
