// Hebrew wording printed on documents (decisions.md "What a printed document says").
import { DOC_TYPE_RULES, type DocType } from '../documents/doc-types.ts';
import { quantityText } from '../platform/money.ts';

export type { DocType };
export type DealerType = 'patur' | 'murshe' | 'company' | 'ngo';

/** The titles by type, from the document types' table. */
export const DOC_TITLES = Object.fromEntries(DOC_TYPE_RULES.map((r) => [r.code, r.titles.he])) as Record<DocType, string>;

/** The words printed before the dealer's tax id. */
export const DEALER_ID_LABELS: Record<DealerType, string> = {
  murshe: 'עוסק מורשה',
  patur: 'עוסק פטור',
  company: 'ח.פ.',
  ngo: 'ע"ר',
};

/** Payment methods by their integer code, including the payment apps (91–93). */
export const PAYMENT_METHOD_NAMES: Record<number, string> = {
  1: 'מזומן',
  2: 'המחאה',
  3: 'כרטיס אשראי',
  4: 'העברה בנקאית',
  5: 'שובר',
  8: 'הוראת קבע',
  9: 'אחר',
  91: 'ביט',
  92: 'פייבוקס',
  93: 'אפליקציית תשלום',
};

/** Card acquirers by OPENFRMT code. */
export const CARD_ACQUIRER_NAMES: Record<string, string> = {
  '1': 'ישראכרט',
  '2': 'כאל',
  '3': 'דיינרס',
  '4': 'אמריקן אקספרס',
  '6': 'לאומי קארד / מקס',
};

/** Card deal types by OPENFRMT code. */
export const CARD_DEAL_TYPE_NAMES: Record<string, string> = {
  '1': 'רגיל',
  '2': 'תשלומים',
  '3': 'קרדיט',
  '4': 'חיוב נדחה',
  '5': 'אחר',
};

export const VAT_EXEMPTION_NAMES: Record<string, string> = {
  eilat: 'אילת',
  export: 'יצוא',
  exempt: 'פטור',
};

export const VARIANT_LABELS = { origin: 'מקור', copy: 'העתק', draft: 'טיוטה' } as const;

export const L = {
  computerized: 'מסמך ממוחשב',
  preview: 'תצוגה מקדימה',
  signed: 'המסמך חתום אלקטרונית',
  draftNotice: 'טיוטה - אינה מסמך חשבונאי ואינה חתומה',
  to: 'לכבוד',
  buyerTaxId: 'ע.מ. / ת.ז.',
  documentDate: 'תאריך',
  valueDate: 'תאריך ערך',
  number: "מס'",
  allocation: 'מספר הקצאה',
  section46: 'אישור לעניין סעיף 46 לפקודת מס הכנסה',
  validFromTo: 'בתוקף',
  donationReport: 'מספר דיווח למערכת התרומות',
  donationReportPending: 'טרם התקבל',
  donationReportMissing: 'לא דווח',
  corrects: 'זיכוי עבור',
  reverses: 'ביטול של',
  basedOn: 'על פי',
  lineNo: '#',
  description: 'תיאור',
  sku: 'מק"ט',
  quantity: 'כמות',
  unit: 'יחידה',
  unitPrice: 'מחיר ליחידה',
  unitPriceGross: 'מחיר ליחידה כולל מע"מ',
  lineDiscount: 'הנחה',
  lineTotal: 'סה"כ',
  subtotal: 'סה"כ שורות',
  discount: 'הנחה כללית',
  totalExVat: 'סה"כ לפני מע"מ',
  vat: 'מע"מ',
  totalIncVat: 'סה"כ כולל מע"מ',
  totalNoVat: 'סה"כ',
  pricesIncludeVat: 'המחירים כוללים מע"מ',
  noVatPatur: 'עוסק פטור - ללא מע"מ',
  vatExempt: 'פטור ממע"מ',
  payments: 'פרטי תשלום',
  paymentMethod: 'אמצעי תשלום',
  paymentDetails: 'פרטים',
  dueDate: 'תאריך פירעון',
  amount: 'סכום',
  paymentsTotal: 'סה"כ שולם',
  withholding: 'ניכוי במקור',
  note: 'הערות',
  phone: 'טלפון',
  email: 'דוא"ל',
  bank: 'בנק',
  branch: 'סניף',
  account: 'חשבון',
  cheque: "המחאה מס'",
  dealType: 'סוג עסקה',
  page: 'עמוד',
  of: 'מתוך',
  defaultUnit: "יח'",
  exchangeRate: 'שער חליפין',
  rateDate: 'תאריך השער',
  rateSource: 'מקור השער',
  inShekels: 'בשקלים',
  ilsEquivalents: 'סכומים בשקלים',
  paidIn: 'שולם במטבע',
  sandbox: 'מסמך ניסיון — אינו מסמך מס',
  sandboxShort: 'ניסיון',
  signatureUnsigned: 'טיוטה - אינה מסמך חשבונאי ואינה חתומה',
  signatureDevelopment: 'נחתם בתעודת פיתוח בחתימה עצמית - אינה חתימה אלקטרונית מאושרת',
  signatureSelfSigned: 'נחתם בתעודה בחתימה עצמית - אינה חתימה אלקטרונית מאושרת',
  signedBy: 'חתום אלקטרונית על ידי',
  certificateIssuer: 'מנפיק התעודה',
} as const;

/** How a rate's source is named on the page. */
export const RATE_SOURCE_NAMES: Record<string, string> = {
  boi: 'שער יציג של בנק ישראל',
  business: 'שער שקבע העסק',
  request: 'שער שנמסר עם המסמך',
};

/** Agorot → "1,234.56" (minus sign in front for negatives); always two decimals. */
export function formatMoney(agorot: number): string {
  const sign = agorot < 0 ? '-' : '';
  const abs = Math.abs(Math.round(agorot));
  const shekels = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${shekels}.${String(abs % 100).padStart(2, '0')}`;
}

/** Agorot with the shekel sign, for an LTR cell: "₪1,234.56". */
export function formatShekels(agorot: number): string {
  const m = formatMoney(agorot);
  return m.startsWith('-') ? `-₪${m.slice(1)}` : `₪${m}`;
}

/** "2026-03-01" → "01/03/2026", the Israeli order. */
export function formatDate(isoDate: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(isoDate);
  return m ? `${m[3]}/${m[2]}/${m[1]}` : isoDate;
}

/** Quantities: up to 4 decimals, no trailing zeros, rounded as the books round them. */
export const formatQuantity = quantityText;

/** VAT rate in basis points → "18%" / "17.5%". */
export function formatRate(bp: number): string {
  return `${Math.round(bp) / 100}%`;
}

export function paymentMethodName(code: number): string {
  return PAYMENT_METHOD_NAMES[code] ?? `${PAYMENT_METHOD_NAMES[9]} (${code})`;
}

/** An acquirer given as its code ("1") prints by name; a free-text name prints as given. */
export function cardAcquirerName(value: string): string {
  return CARD_ACQUIRER_NAMES[value.trim()] ?? value;
}

export function cardDealTypeName(value: string): string {
  return CARD_DEAL_TYPE_NAMES[value.trim()] ?? value;
}
