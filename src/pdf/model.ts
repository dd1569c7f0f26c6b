import type { DealerType, DocType } from './hebrew.ts';

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
}

export interface RenderLine {
  description: string;
  quantity: number;
  /** Agorot; VAT-inclusive when priceMode is gross. */
  unitPrice: number;
  lineDiscount: number;
  /** Agorot: round(quantity × unitPrice) − lineDiscount, as computed at issue. */
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
  totals: {
    discountAmount: number;
    totalExVat: number;
    vatAmount: number;
    totalIncVat: number;
    withholdingAmount: number;
  };
  allocationNumber?: string | null;
  note?: string | null;
  /** For a credit note (or a negative receipt): the document it corrects. */
  linkedDocument?: { docType: DocType; docNumber: number } | null;
}
