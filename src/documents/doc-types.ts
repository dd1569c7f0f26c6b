/**
 * The document types and every rule that depends on the type, in one table (issue 19): who may
 * issue it, its numbering series, what it must carry, how its payments settle it, what credits it,
 * how OPENFRMT writes it, its journal entry and its printed titles. Adding a type is one row here
 * (plus the database CHECK of documents.doc_type, migrations) and its tests.
 *
 * Pure: no I/O, imports only types, so src/pdf and src/openfrmt may read it.
 * Sources: service-api.md (Documents), decisions.md ("Money and tax", "What a printed document says").
 */
import { DEALER_TYPES, type DealerType } from '../businesses/dealer-types.ts';

/** How a type's payments relate to its totals. */
export type PaymentsRule =
  /** No payments (a draft with some is refused). */
  | 'none'
  /** Required: they settle the total less the tax withheld (else 422 payments_mismatch at issue). */
  | 'settle-total-less-withholding'
  /** Required and non-zero: they are the total (the amount received). */
  | 'are-the-total';

/**
 * What a document converted from another does with its source's quantities (POST …/convert): each
 * stage takes a source line's quantity at most once in all (an order is delivered once and invoiced once).
 */
export type ConversionStage = 'order' | 'delivery' | 'return' | 'invoice';

/** How a type is undone (service-api.md "credit note"). */
export interface CreditRule {
  /** The type of the reversing document, numbered in that type's series. */
  docType: DocType;
  /** `credit-note`: a linked 330 mirroring the invoice part; `negative`: the same type with negative amounts. */
  as: 'credit-note' | 'negative';
}

export interface DocTypeRule {
  /** The type's number: the API's `docType`, OPENFRMT 1203/1253/1303 and the printed type. */
  code: DocType;
  /** The API's name (OpenAPI descriptions): "tax invoice-receipt". */
  name: string;
  /** The word used in error messages, singular and plural: "invoice/receipt", "receipts". */
  noun: string;
  nounPlural: string;
  /**
   * A document of the VAT law and the bookkeeping instructions (an invoice, a receipt), which the books
   * and the VAT returns count. The others (quote, order, delivery and return notes, transaction invoice)
   * are commercial papers: numbered, frozen and printed the same, but they post nothing.
   */
  taxDocument: boolean;
  /** decisions.md: of the tax documents, patur and ngo issue 400 only; every dealer issues the non-tax types. */
  issuedBy: readonly DealerType[];
  /** `draft`: created as a draft and issued; `credit-note`: only by the credit-note endpoint. */
  createdBy: 'draft' | 'credit-note';
  /** The numbering series (document_counters.doc_type) the type takes its number from. */
  series: DocType;
  /** Issue and draft writes refuse it without lines. */
  linesRequired: boolean;
  /** `lines`: totals from the lines (VAT, document discount); `payments`: the amount received. */
  totalsFrom: 'lines' | 'payments';
  payments: PaymentsRule;
  /** Whether withholding (tax withheld at source) may be recorded on it. */
  withholding: boolean;
  /** Whether the document carries VAT of its own (a receipt does not: rate 0). */
  carriesVat: boolean;
  /** A buyer's tax id is warned about at 5,000 NIS or more before VAT. */
  buyerTaxIdCheck: boolean;
  /** Israel Invoices allocation numbers may be needed (decisions.md). */
  allocation: boolean;
  /** What undoes it; null: it cannot itself be credited. */
  creditedBy: CreditRule | null;
  openfrmt: {
    /** Whether the export writes it at all: OPENFRMT 1.31 has no code for a price quote (docs/documents.md). */
    exported: boolean;
    /** `positive`: written with absolute amounts, the type carries the meaning (330); `signed`: as they are. */
    amounts: 'positive' | 'signed';
    /** C100 1219–1223 as a receipt (1219 = 1221 = 1223 = received, VAT 0) or as an invoice. */
    c100: 'invoice' | 'receipt';
    /** D110 lines, D120 payments, and 1224 (withholding) written. */
    d110: boolean;
    d120: boolean;
    withholding1224: boolean;
  };
  /** Its journal entry (src/ledger/journal.ts): the invoice part (1, mirrored -1, none 0) and the receipt part. */
  journal: { invoice: 1 | -1 | 0; receipt: boolean };
  titles: {
    /** Printed titles (PDF, e-mail subject): checked byte for byte. */
    he: string;
    en: string;
    /** The journal entry's description. */
    journal: string;
  };
  /** What the page says under the title, in both languages: a 300 is not a tax invoice (decisions.md). */
  printedNotice: { he: string; en: string } | null;
  /** The label before the document it links to (PDF): a credit note corrects, a negative document reverses. */
  linkedLabel: 'corrects' | 'reverses';
  /** The types a document of this type may be converted into (decisions.md: quote → order → delivery → invoice, 300 → 320). */
  convertsTo: readonly DocType[];
  /** As the target of a conversion, the stage of its source's quantities it takes; null: never a target. */
  fulfils: ConversionStage | null;
  /**
   * A donation receipt (decisions.md, israel-tax.md §7): issued only with a section 46 approval in force
   * on its date and with the donor's ID number, posted as donation income, and reported (its credit too)
   * to the Tax Authority's digital donation system, whose report number it prints.
   */
  donation: boolean;
}

const ALL_DEALERS: readonly DealerType[] = DEALER_TYPES;
const VAT_DEALERS: readonly DealerType[] = ['murshe', 'company'];

/** The type codes. A new type: its code here and its row below (the compiler asks for both). */
export type DocType = 10 | 100 | 200 | 210 | 300 | 305 | 320 | 330 | 400 | 405;

/**
 * A commercial paper (not a tax document, decisions.md "Document types beyond the four"): every dealer
 * issues it from a draft with lines, in its own series; no payments, no withholding, no allocation
 * number, nothing to credit (a return note undoes a delivery); VAT shown as any priced paper shows it;
 * no journal entry; OPENFRMT C100 + D110 as an invoice-like document when 1.31 has a code for it.
 */
function commercialPaper(p: {
  code: DocType;
  name: string;
  noun: string;
  nounPlural: string;
  he: string;
  en: string;
  exported: boolean;
  printedNotice?: { he: string; en: string };
  convertsTo: readonly DocType[];
  fulfils: ConversionStage | null;
}): DocTypeRule {
  return {
    code: p.code,
    name: p.name,
    noun: p.noun,
    nounPlural: p.nounPlural,
    taxDocument: false,
    issuedBy: ALL_DEALERS,
    createdBy: 'draft',
    series: p.code,
    linesRequired: true,
    totalsFrom: 'lines',
    payments: 'none',
    withholding: false,
    carriesVat: true,
    buyerTaxIdCheck: false,
    allocation: false,
    creditedBy: null,
    openfrmt: { exported: p.exported, amounts: 'signed', c100: 'invoice', d110: true, d120: false, withholding1224: false },
    journal: { invoice: 0, receipt: false },
    titles: { he: p.he, en: p.en, journal: p.he },
    printedNotice: p.printedNotice ?? null,
    linkedLabel: 'reverses',
    convertsTo: p.convertsTo,
    fulfils: p.fulfils,
    donation: false,
  };
}

/**
 * The conversions (decisions.md): a quote becomes an order, a delivery or an invoice; an order a
 * delivery or an invoice; a delivery note its return or its invoice; a 300 its tax invoice when paid.
 * Tax documents convert into nothing (a receipt is not quoted, an invoice not ordered: 409).
 */
type Conversion = Pick<DocTypeRule, 'convertsTo' | 'fulfils'>;
const INVOICES: readonly DocType[] = [300, 305, 320];
const QUOTE: Conversion = { convertsTo: [100, 200, ...INVOICES], fulfils: null };
const ORDER: Conversion = { convertsTo: [200, ...INVOICES], fulfils: 'order' };
const DELIVERY: Conversion = { convertsTo: [210, ...INVOICES], fulfils: 'delivery' };
const RETURN: Conversion = { convertsTo: [], fulfils: 'return' };
const TRANSACTION_INVOICE: Conversion = { convertsTo: [305, 320], fulfils: 'invoice' };

/** The table. Keys are the codes; order is ascending code (lists, the OpenAPI enum). */
export const DOC_TYPES: Readonly<Record<DocType, DocTypeRule>> = {
  10: commercialPaper({
    code: 10,
    name: 'price quote',
    noun: 'price quote',
    nounPlural: 'price quotes',
    he: 'הצעת מחיר',
    en: 'Price Quote',
    exported: false,
    ...QUOTE,
  }),
  100: commercialPaper({ code: 100, name: 'order', noun: 'order', nounPlural: 'orders', he: 'הזמנה', en: 'Order', exported: true, ...ORDER }),
  200: commercialPaper({
    code: 200,
    name: 'delivery note',
    noun: 'delivery note',
    nounPlural: 'delivery notes',
    he: 'תעודת משלוח',
    en: 'Delivery Note',
    exported: true,
    ...DELIVERY,
  }),
  210: commercialPaper({
    code: 210,
    name: 'return note',
    noun: 'return note',
    nounPlural: 'return notes',
    he: 'תעודת החזרה',
    en: 'Return Note',
    exported: true,
    ...RETURN,
  }),
  300: commercialPaper({
    code: 300,
    name: 'transaction invoice (payment demand)',
    noun: 'transaction invoice',
    nounPlural: 'transaction invoices',
    he: 'חשבונית עסקה',
    en: 'Transaction Invoice',
    exported: true,
    // The VAT it shows is for information: the tax invoice (320 or 305) is issued on payment.
    printedNotice: { he: 'זו אינה חשבונית מס', en: 'This is not a tax invoice' },
    ...TRANSACTION_INVOICE,
  }),
  305: {
    code: 305,
    name: 'tax invoice',
    noun: 'tax invoice',
    nounPlural: 'tax invoices',
    taxDocument: true,
    issuedBy: VAT_DEALERS,
    createdBy: 'draft',
    series: 305,
    linesRequired: true,
    totalsFrom: 'lines',
    payments: 'none',
    withholding: false,
    carriesVat: true,
    buyerTaxIdCheck: true,
    allocation: true,
    creditedBy: { docType: 330, as: 'credit-note' },
    openfrmt: { exported: true, amounts: 'signed', c100: 'invoice', d110: true, d120: false, withholding1224: false },
    journal: { invoice: 1, receipt: false },
    titles: { he: 'חשבונית מס', en: 'Tax Invoice', journal: 'חשבונית מס' },
    printedNotice: null,
    linkedLabel: 'reverses',
    convertsTo: [],
    fulfils: 'invoice',
    donation: false,
  },
  320: {
    code: 320,
    name: 'tax invoice-receipt',
    noun: 'invoice/receipt',
    nounPlural: 'invoice/receipts',
    taxDocument: true,
    issuedBy: VAT_DEALERS,
    createdBy: 'draft',
    series: 320,
    linesRequired: true,
    totalsFrom: 'lines',
    payments: 'settle-total-less-withholding',
    withholding: true,
    carriesVat: true,
    buyerTaxIdCheck: true,
    allocation: true,
    creditedBy: { docType: 330, as: 'credit-note' },
    openfrmt: { exported: true, amounts: 'signed', c100: 'invoice', d110: true, d120: true, withholding1224: true },
    journal: { invoice: 1, receipt: true },
    titles: { he: 'חשבונית מס / קבלה', en: 'Tax Invoice / Receipt', journal: 'חשבונית מס קבלה' },
    printedNotice: null,
    linkedLabel: 'reverses',
    convertsTo: [],
    fulfils: 'invoice',
    donation: false,
  },
  330: {
    code: 330,
    name: 'credit invoice',
    noun: 'credit note',
    nounPlural: 'credit notes',
    taxDocument: true,
    issuedBy: VAT_DEALERS,
    createdBy: 'credit-note',
    series: 330,
    linesRequired: false,
    totalsFrom: 'lines',
    payments: 'none',
    withholding: false,
    carriesVat: true,
    buyerTaxIdCheck: false,
    allocation: false,
    creditedBy: null,
    openfrmt: { exported: true, amounts: 'positive', c100: 'invoice', d110: true, d120: false, withholding1224: false },
    journal: { invoice: -1, receipt: false },
    titles: { he: 'חשבונית מס זיכוי', en: 'Credit Tax Invoice', journal: 'חשבונית מס זיכוי' },
    printedNotice: null,
    linkedLabel: 'corrects',
    convertsTo: [],
    fulfils: null,
    donation: false,
  },
  400: {
    code: 400,
    name: 'receipt',
    noun: 'receipt',
    nounPlural: 'receipts',
    taxDocument: true,
    issuedBy: ALL_DEALERS,
    createdBy: 'draft',
    series: 400,
    linesRequired: false,
    totalsFrom: 'payments',
    payments: 'are-the-total',
    withholding: true,
    carriesVat: false,
    buyerTaxIdCheck: false,
    allocation: false,
    creditedBy: { docType: 400, as: 'negative' },
    openfrmt: { exported: true, amounts: 'signed', c100: 'receipt', d110: false, d120: true, withholding1224: true },
    journal: { invoice: 0, receipt: true },
    titles: { he: 'קבלה', en: 'Receipt', journal: 'קבלה' },
    printedNotice: null,
    linkedLabel: 'reverses',
    convertsTo: [],
    fulfils: null,
    donation: false,
  },
  // A receipt of a public institution for a donation (decisions.md "Document types beyond the four"): its
  // total is what was given, no VAT, no withholding; undone by a negative 405, reported as a cancellation.
  405: {
    code: 405,
    name: 'donation receipt',
    noun: 'donation receipt',
    nounPlural: 'donation receipts',
    taxDocument: true,
    issuedBy: ['ngo'],
    createdBy: 'draft',
    series: 405,
    linesRequired: false,
    totalsFrom: 'payments',
    payments: 'are-the-total',
    withholding: false,
    carriesVat: false,
    buyerTaxIdCheck: false,
    allocation: false,
    creditedBy: { docType: 405, as: 'negative' },
    openfrmt: { exported: true, amounts: 'signed', c100: 'receipt', d110: false, d120: true, withholding1224: false },
    journal: { invoice: 0, receipt: true },
    titles: { he: 'קבלה על תרומה', en: 'Donation Receipt', journal: 'קבלה על תרומה' },
    printedNotice: null,
    linkedLabel: 'reverses',
    convertsTo: [],
    fulfils: null,
    donation: true,
  },
};

/** Every row, ascending code. */
export const DOC_TYPE_RULES: readonly DocTypeRule[] = Object.values(DOC_TYPES);

/** Every code, ascending: the OpenAPI enum of `docType`. */
export const DOC_TYPE_CODES: readonly DocType[] = DOC_TYPE_RULES.map((r) => r.code);

/** The codes a draft may have (a credit note is created only by the credit-note endpoint). */
export const DRAFT_DOC_TYPE_CODES: readonly DocType[] = docTypesWhere((r) => r.createdBy === 'draft');

/** The row of a number that may not be a type (OPENFRMT input, stored integers); undefined when none. */
export function docTypeRuleOf(code: number): DocTypeRule | undefined {
  return DOC_TYPE_RULES.find((r) => r.code === code);
}

/** The codes whose row passes `test`. */
export function docTypesWhere(test: (r: DocTypeRule) => boolean): DocType[] {
  return DOC_TYPE_RULES.filter(test).map((r) => r.code);
}

/** "305, 320 or 400" (`or`) / "305 and 320" (`and`). */
export function listOfCodes(codes: readonly number[], last: 'or' | 'and'): string {
  return codes.length <= 1 ? codes.join('') : `${codes.slice(0, -1).join(', ')} ${last} ${codes[codes.length - 1]}`;
}

/**
 * Whether a dealer of this kind charges VAT: an עוסק מורשה or a company does; an exempt dealer (patur) and a
 * non-profit (ngo) do not and cannot deduct input VAT (decisions.md "Money and tax"; israel-tax.md §3.2).
 */
export function chargesVat(dealerType: DealerType): boolean {
  return VAT_DEALERS.includes(dealerType);
}

/** Whether a dealer of this kind may issue the type. */
export function docTypeAllowed(dealerType: DealerType, docType: DocType): boolean {
  return DOC_TYPES[docType].issuedBy.includes(dealerType);
}

/** The refusal of a type a dealer may not issue: "a patur business issues receipts (400) only". */
export function docTypeRefusal(dealerType: DealerType): string {
  const allowed = DOC_TYPE_RULES.filter((r) => r.createdBy === 'draft' && r.issuedBy.includes(dealerType));
  return `a ${dealerType} business issues ${allowed.map((r) => `${r.nounPlural} (${r.code})`).join(', ')} only`;
}
