import type { DealerType, DocType } from './hebrew.ts';

/** The printed language: Hebrew (RTL), English (LTR, legally required Hebrew words kept), or both (Hebrew first). */
export type Language = 'he' | 'en' | 'he+en';

/** Where an exchange rate came from (documents/snapshot.ts ExchangeRateSource). */
export type ExchangeRateSource = 'boi' | 'business' | 'request';

/**
 * What signed the PDF, so the page says exactly that: our generated development certificate, some
 * other self-signed certificate, or a certificate issued by a CA (named by subject and issuer).
 */
export interface SignatureInfo {
  kind: 'development' | 'self-signed' | 'issued';
  subject: string;
  issuer: string;
}

/** The five totals, in minor units of their currency. */
export interface RenderTotals {
  discountAmount: number;
  totalExVat: number;
  vatAmount: number;
  totalIncVat: number;
  withholdingAmount: number;
}

/**
 * A currency as the renderer needs it: the ISO code and its minor units (0 JPY, 2 USD, 3 KWD).
 * The caller looks the minor units up (platform/currencies.ts), so src/pdf stays free of tables.
 */
export interface RenderCurrency {
  code: string;
  minorUnits: number;
}

/** Which print a PDF is: the origin (once), a copy, or an unsigned draft preview. */
export type Variant = 'origin' | 'copy' | 'draft';

export type Template = 'classic' | 'stripe';

export interface RenderPayment {
  /** Integer code: 1, 2, 3, 4, 5, 8, 9, 91, 92, 93. */
  method: number;
  amount: number;
  dueDate?: string | null;
  bankCode?: string | null;
  branchCode?: string | null;
  accountNumber?: string | null;
  checkNumber?: string | null;
  /** Acquirer: OPENFRMT code ("1".."6") or a name. */
  cardCompany?: string | null;
  cardName?: string | null;
  /** Deal type: OPENFRMT code ("1".."5") or a name. */
  cardTxType?: string | null;
  /** A payment in another currency than the document's: its currency, shekels per unit, and its own amount. */
  currency?: RenderCurrency | null;
  exchangeRate?: string | null;
  /** Minor units of `currency`. `amount` stays in the document currency. */
  originalAmount?: number | null;
}

export interface RenderLine {
  description: string;
  quantity: number;
  /** Minor units of the document currency (agorot for ILS); VAT-inclusive when priceMode is gross. */
  unitPrice: number;
  lineDiscount: number;
  /** Minor units: round(quantity × unitPrice) − lineDiscount, as computed at issue. */
  amount: number;
  unit?: string | null;
  sku?: string | null;
}

/**
 * Everything a printed document says (decisions.md "What a printed document says"), already
 * computed: the renderer formats and lays out, it never calculates tax.
 */
export interface RenderModel {
  docType: DocType;
  /** Null on a draft preview. */
  docNumber: number | null;
  documentDate: string;
  valueDate?: string | null;
  dealer: {
    name: string;
    taxId: string;
    dealerType: DealerType;
    address?: string | null;
    phone?: string | null;
    email?: string | null;
  };
  branding: {
    template: Template;
    /** #RRGGBB or null for the default. */
    accentColor?: string | null;
    tagline?: string | null;
    website?: string | null;
    footerText?: string | null;
    /** PNG or JPEG bytes. */
    logo?: Uint8Array | null;
  };
  party?: {
    name: string;
    taxId?: string | null;
    address?: string | null;
    phone?: string | null;
    email?: string | null;
  } | null;
  priceMode: 'net' | 'gross';
  vatRateBp: number;
  vatExemptionReason?: string | null;
  lines: RenderLine[];
  payments: RenderPayment[];
  /** In minor units of `currency`. */
  totals: RenderTotals;
  /** Absent: 'he'. */
  language?: Language;
  /** Absent: shekels (ILS, 2 minor units). */
  currency?: RenderCurrency;
  /** Shekels for one unit of `currency`, a decimal string as recorded; null for ILS. */
  exchangeRate?: string | null;
  exchangeRateDate?: string | null;
  exchangeRateSource?: ExchangeRateSource | null;
  /** The totals in agorot as recorded at issue (never computed by the renderer); for a foreign currency. */
  ils?: RenderTotals | null;
  allocationNumber?: string | null;
  /** A donation receipt (405): the organisation's section 46 approval, as frozen at issue. */
  section46?: { number: string; validFrom: string; validTo: string } | null;
  /**
   * A donation receipt (405): the number the digital donation system gave its report (for a negative 405,
   * the cancellation's); `number` null while it has not answered (`pending`) or when it never will
   * (refused, failed). Absent on other types.
   */
  donationReport?: { number: string | null; pending: boolean } | null;
  note?: string | null;
  /** For a credit note (or a negative receipt): the document it corrects. */
  linkedDocument?: { docType: DocType; docNumber: number } | null;
  /** The documents it was converted from (issue 30): "על פי: הזמנה מס' 3". */
  basedOn?: { docType: DocType; docNumber: number }[];
}
