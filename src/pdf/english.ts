// English wording printed on documents in `en` and `he+en` (docs/pdf-prints-email.md "Languages").
// Keys mirror hebrew.ts so every Hebrew label has its English twin (checked by the type below).
import type { DealerType, DocType } from './hebrew.ts';
import { L } from './hebrew.ts';
import { DOC_TYPE_RULES } from '../documents/doc-types.ts';

/** The titles used by the reference notes (israel-tax.md) and the API contract, from the document types' table. */
export const EN_DOC_TITLES = Object.fromEntries(DOC_TYPE_RULES.map((r) => [r.code, r.titles.en])) as Record<DocType, string>;

export const EN_DEALER_ID_LABELS: Record<DealerType, string> = {
  murshe: 'Authorized Dealer',
  patur: 'Exempt Dealer',
  company: 'Company No.',
  ngo: 'Registered Non-Profit No.',
};

export const EN_PAYMENT_METHOD_NAMES: Record<number, string> = {
  1: 'Cash',
  2: 'Cheque',
  3: 'Credit card',
  4: 'Bank transfer',
  5: 'Voucher',
  8: 'Standing order',
  9: 'Other',
  91: 'Bit',
  92: 'PayBox',
  93: 'Payment app',
};

export const EN_CARD_ACQUIRER_NAMES: Record<string, string> = {
  '1': 'Isracard',
  '2': 'Cal',
  '3': 'Diners',
  '4': 'American Express',
  '6': 'Leumi Card / Max',
};

export const EN_CARD_DEAL_TYPE_NAMES: Record<string, string> = {
  '1': 'Regular',
  '2': 'Installments',
  '3': 'Credit',
  '4': 'Deferred charge',
  '5': 'Other',
};

export const EN_VAT_EXEMPTION_NAMES: Record<string, string> = {
  eilat: 'Eilat',
  export: 'Export',
  exempt: 'Exempt',
};

export const EN_VARIANT_LABELS = { origin: 'Original', copy: 'Copy', draft: 'Draft' } as const;

export const EN_RATE_SOURCE_NAMES: Record<string, string> = {
  boi: 'Bank of Israel representative rate',
  business: "the business's own rate",
  request: 'rate given with the document',
};

export const EN: Record<keyof typeof L, string> = {
  computerized: 'Computerised document',
  preview: 'Preview',
  signed: 'Electronically signed',
  draftNotice: 'Draft - not an accounting document, not signed',
  to: 'To',
  buyerTaxId: 'Tax ID',
  documentDate: 'Date',
  valueDate: 'Value date',
  number: 'No.',
  allocation: 'Allocation number',
  section46: 'Section 46 approval (Income Tax Ordinance)',
  validFromTo: 'valid',
  donationReport: 'Donation system report number',
  donationReportPending: 'not received yet',
  donationReportMissing: 'not reported',
  corrects: 'Credit for',
  reverses: 'Reversal of',
  basedOn: 'Based on',
  lineNo: '#',
  description: 'Description',
  sku: 'SKU',
  quantity: 'Quantity',
  unit: 'Unit',
  unitPrice: 'Unit price',
  unitPriceGross: 'Unit price incl. VAT',
  lineDiscount: 'Discount',
  lineTotal: 'Amount',
  subtotal: 'Lines total',
  discount: 'Document discount',
  totalExVat: 'Total before VAT',
  vat: 'VAT',
  totalIncVat: 'Total incl. VAT',
  totalNoVat: 'Total',
  pricesIncludeVat: 'Prices include VAT',
  noVatPatur: 'Exempt dealer - no VAT',
  vatExempt: 'VAT exempt',
  payments: 'Payment details',
  paymentMethod: 'Payment method',
  paymentDetails: 'Details',
  dueDate: 'Due date',
  amount: 'Amount',
  paymentsTotal: 'Total paid',
  withholding: 'Tax withheld at source',
  note: 'Notes',
  phone: 'Phone',
  email: 'Email',
  bank: 'Bank',
  branch: 'Branch',
  account: 'Account',
  cheque: 'Cheque No.',
  dealType: 'Deal type',
  page: 'Page',
  of: 'of',
  defaultUnit: 'unit',
  exchangeRate: 'Exchange rate',
  rateDate: 'Rate date',
  rateSource: 'Source',
  inShekels: 'in ILS',
  ilsEquivalents: 'Amounts in shekels',
  paidIn: 'Paid in',
  sandbox: 'SANDBOX — NOT A TAX DOCUMENT',
  sandboxShort: 'SANDBOX',
  signatureUnsigned: 'Draft - not an accounting document, not signed',
  signatureDevelopment: 'Signed with a self-signed development certificate — not an approved electronic signature',
  signatureSelfSigned: 'Signed with a self-signed certificate — not an approved electronic signature',
  signedBy: 'Electronically signed by',
  certificateIssuer: 'certificate issued by',
};
