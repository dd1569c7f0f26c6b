/**
 * The default chart of accounts (pure). Every business gets the same codes, so that an accountant
 * reading two businesses reads the same chart; a patur or ngo dealer, who issues receipts only,
 * books its receipts straight to revenue and has no output VAT. Codes are at most 15 characters
 * (B110 field 1402); the trial-balance code (1406) groups accounts into the statements.
 */
import type { DealerType } from '../businesses/dealer-types.ts';
import type { PaymentMethodCode, VatExemptionReason } from '../documents/snapshot-types.ts';
import type { AccountKind } from './lists.ts';

export type { AccountKind } from './lists.ts';

export interface ChartAccount {
  code: string;
  name: string;
  kind: AccountKind;
  trialBalanceCode: string;
  trialBalanceName: string;
}

/** Trial-balance groups (B110 1406–1407), in statement order. */
export const TRIAL_BALANCE_GROUPS = {
  '100': 'רכוש שוטף',
  '150': 'רכוש קבוע',
  '200': 'התחייבויות שוטפות',
  '300': 'הון',
  '400': 'הכנסות',
  '500': 'עלות המכירות',
  '600': 'הוצאות הנהלה וכלליות',
  '700': 'הוצאות מימון',
} as const;
export type TrialBalanceCode = keyof typeof TRIAL_BALANCE_GROUPS;

const account = (code: string, name: string, kind: AccountKind, tb: TrialBalanceCode): ChartAccount => ({
  code,
  name,
  kind,
  trialBalanceCode: tb,
  trialBalanceName: TRIAL_BALANCE_GROUPS[tb],
});

/** The control accounts of parties; a saved party has its own sub-account under them. */
export const CUSTOMERS = '1100';
export const OCCASIONAL_CUSTOMERS = '1190';
export const SUPPLIERS = '2100';
export const OCCASIONAL_SUPPLIERS = '2190';
export const WITHHOLDING_RECEIVABLE = '1300';
export const INPUT_VAT = '1400';
export const INPUT_VAT_FIXED_ASSETS = '1410';
export const OUTPUT_VAT = '2200';
export const OPENING_BALANCES = '3000';
/** An ngo's donations received (405 donation receipts): income, but no sale, so outside the VAT report. */
export const DONATION_INCOME = '4200';

const PAYMENT_ACCOUNTS: Record<PaymentMethodCode, string> = {
  1: '1200', // cash
  2: '1210', // cheques
  3: '1220', // credit cards
  4: '1230', // bank transfer
  5: '1240', // vouchers
  8: '1250', // other: exchange notes and the like
  9: '1260', // payment apps
  91: '1260',
  92: '1260',
  93: '1260',
};

const EXPENSE_ACCOUNTS: Record<string, [code: string, tb: TrialBalanceCode]> = {
  inventory: ['5000', '500'],
  subcontractors: ['5100', '500'],
  office: ['6000', '600'],
  rent: ['6010', '600'],
  utilities: ['6020', '600'],
  professional_services: ['6030', '600'],
  advertising: ['6040', '600'],
  software: ['6050', '600'],
  equipment: ['1500', '150'],
  maintenance: ['6060', '600'],
  travel: ['6070', '600'],
  communication: ['6080', '600'],
  vehicle_private: ['6090', '600'],
  vehicle_purchase: ['1510', '150'],
  vehicle_commercial: ['6100', '600'],
  refreshments: ['6110', '600'],
  employee_benefits: ['6120', '600'],
  gifts: ['6130', '600'],
  insurance: ['6140', '600'],
  bank_fees: ['7000', '700'],
  salaries: ['6150', '600'],
  taxes_fees: ['6160', '600'],
  abroad: ['6170', '600'],
  other: ['6900', '600'],
};

/** Expense categories whose purchases are fixed assets: their input VAT is reported apart (PCN874, VAT return). */
export const FIXED_ASSET_CATEGORIES = new Set(['equipment', 'vehicle_purchase']);

export function defaultChart(dealerType: DealerType, categoryNames: Record<string, string>): ChartAccount[] {
  const vatDealer = dealerType === 'murshe' || dealerType === 'company';
  const chart = [
    account(CUSTOMERS, 'לקוחות', 'asset', '100'),
    account(OCCASIONAL_CUSTOMERS, 'לקוחות מזדמנים', 'asset', '100'),
    account('1200', 'קופה — מזומן', 'asset', '100'),
    account('1210', 'המחאות לגבייה', 'asset', '100'),
    account('1220', 'כרטיסי אשראי לגבייה', 'asset', '100'),
    account('1230', 'בנק — העברות', 'asset', '100'),
    account('1240', 'תלושים ושוברים', 'asset', '100'),
    account('1250', 'אמצעי תשלום אחרים', 'asset', '100'),
    account('1260', 'אפליקציות תשלום', 'asset', '100'),
    account(WITHHOLDING_RECEIVABLE, 'ניכוי במקור לקבל', 'asset', '100'),
    account(INPUT_VAT, 'מע"מ תשומות', 'asset', '100'),
    account(INPUT_VAT_FIXED_ASSETS, 'מע"מ תשומות ציוד', 'asset', '100'),
    account(SUPPLIERS, 'ספקים', 'liability', '200'),
    account(OCCASIONAL_SUPPLIERS, 'ספקים מזדמנים', 'liability', '200'),
    account(OUTPUT_VAT, 'מע"מ עסקאות', 'liability', '200'),
    account(OPENING_BALANCES, 'יתרות פתיחה', 'equity', '300'),
    ...(vatDealer
      ? [
          account('4000', 'הכנסות חייבות במע"מ', 'revenue', '400'),
          account('4010', 'הכנסות ממכירות בשיעור אפס (יצוא)', 'revenue', '400'),
          account('4020', 'הכנסות באילת', 'revenue', '400'),
          account('4030', 'הכנסות פטורות', 'revenue', '400'),
        ]
      : [account('4100', dealerType === 'ngo' ? 'הכנסות (מלכ"ר)' : 'הכנסות (עוסק פטור)', 'revenue', '400')]),
    ...(dealerType === 'ngo' ? [account(DONATION_INCOME, 'הכנסות מתרומות', 'revenue', '400')] : []),
  ];
  for (const [key, [code, tb]] of Object.entries(EXPENSE_ACCOUNTS)) {
    chart.push(account(code, (categoryNames[key] ?? key).slice(0, 50), tb === '150' ? 'asset' : 'expense', tb));
  }
  return chart;
}

export function paymentAccount(method: PaymentMethodCode): string {
  return PAYMENT_ACCOUNTS[method];
}

/**
 * Where a payment to a supplier is paid from: cash from the till (`1200`); every other method from the
 * bank (`1230`) — a transfer or a standing order at once, a cheque as it clears, a card at its charge, an app.
 */
export function paidFromAccount(method: PaymentMethodCode): string {
  return method === 1 ? '1200' : '1230';
}

export function expenseAccount(categoryKey: string): string {
  return (EXPENSE_ACCOUNTS[categoryKey] ?? EXPENSE_ACCOUNTS.other)[0];
}

/** Where a document's revenue goes: by the VAT treatment of the document (vatDealer: murshe, company). */
export function revenueAccount(vatDealer: boolean, exemption: VatExemptionReason | null): string {
  if (!vatDealer) return '4100';
  if (exemption === 'export') return '4010';
  if (exemption === 'eilat') return '4020';
  if (exemption === 'exempt') return '4030';
  return '4000';
}

/** A saved party's sub-account under its control account: `1100-C00001`, `2100-S00002`. */
export function partyAccountCode(control: typeof CUSTOMERS | typeof SUPPLIERS, partyKey: string): string {
  return `${control}-${partyKey}`;
}

/** The sub-account of a party named on a fact but not saved, by its tax id: `1100-T516179157` (15 characters, B110 1403). */
export function taxIdAccountCode(control: typeof CUSTOMERS | typeof SUPPLIERS, taxId: string): string {
  return `${control}-T${taxId}`;
}

const TAX_ID_ACCOUNT = new RegExp(`^(?:${CUSTOMERS}|${SUPPLIERS})-T([0-9]{9})$`);

/** The tax id a sub-account by tax id is named after (B110 1419), or null for any other account. */
export function taxIdOfAccountCode(code: string): string | null {
  return TAX_ID_ACCOUNT.exec(code)?.[1] ?? null;
}
