/**
 * The frozen snapshot stored at issue (`documents.snapshot`) and the parts of a document other areas read, as types
 * and constant tables only: the ledger, the export and the PDF read them without loading the documents domain.
 */
import type { BusinessRecord, Section46Approval, StoredBranding } from '../businesses/index.ts';
import type { Metadata } from '../platform/metadata.ts';
import type { DocType, Totals } from './figures.ts';
import type { AllocationStatus, DocumentLanguage, ExchangeRateSource, PriceMode, VatExemptionReason } from './lists.ts';

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

/** The issuing business as a document prints it (frozen in the snapshot at issue). */
export type Dealer = Pick<BusinessRecord, 'name' | 'taxId' | 'dealerType' | 'address' | 'phone' | 'email'>;
