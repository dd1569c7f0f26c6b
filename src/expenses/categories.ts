import { roundHalfAwayFromZero } from '../platform/money.ts';
import { chargesVat } from '../documents/doc-types.ts';
import type { DealerType } from '../businesses/dealer-types.ts';

/**
 * The published expense categories and how much of the input VAT on each may be deducted.
 * The fraction is applied to the VAT of a recorded expense (see deductibleVat). Sources are in the
 * docs/expenses.md: VAT Regulations 5736-1976, regs. 14, 15, 15A and 18.
 * Not legal advice: an accountant may override a category by choosing another one.
 */
export interface ExpenseCategory {
  key: string;
  nameHe: string;
  nameEn: string;
  /** Deductible share of the input VAT, as a fraction. */
  vatDeductible: { numerator: number; denominator: number };
  /** Why the share is what it is (the rule, briefly). */
  vatRule: string;
}

const full = { numerator: 1, denominator: 1 };
const none = { numerator: 0, denominator: 1 };
const twoThirds = { numerator: 2, denominator: 3 };

export const EXPENSE_CATEGORIES: readonly ExpenseCategory[] = [
  {
    key: 'inventory',
    nameHe: 'קניות סחורה',
    nameEn: 'Goods for resale / raw materials',
    vatDeductible: full,
    vatRule: 'Input for taxable sales: fully deductible.',
  },
  { key: 'subcontractors', nameHe: 'קבלני משנה', nameEn: 'Subcontractors', vatDeductible: full, vatRule: 'Fully deductible.' },
  { key: 'office', nameHe: 'משרדיות וציוד משרדי', nameEn: 'Office supplies', vatDeductible: full, vatRule: 'Fully deductible.' },
  {
    key: 'rent',
    nameHe: 'שכירות',
    nameEn: 'Rent (business premises)',
    vatDeductible: full,
    vatRule: 'Fully deductible when the premises serve the business only.',
  },
  { key: 'utilities', nameHe: 'חשמל, מים וארנונה', nameEn: 'Utilities', vatDeductible: full, vatRule: 'Fully deductible for business premises.' },
  {
    key: 'professional_services',
    nameHe: 'שירותים מקצועיים',
    nameEn: 'Professional services (accounting, legal)',
    vatDeductible: full,
    vatRule: 'Fully deductible.',
  },
  { key: 'advertising', nameHe: 'פרסום ושיווק', nameEn: 'Advertising and marketing', vatDeductible: full, vatRule: 'Fully deductible.' },
  { key: 'software', nameHe: 'תוכנה ושירותי מחשוב', nameEn: 'Software and IT services', vatDeductible: full, vatRule: 'Fully deductible.' },
  {
    key: 'equipment',
    nameHe: 'ציוד (רכוש קבוע)',
    nameEn: 'Equipment (fixed assets)',
    vatDeductible: full,
    vatRule: 'Fully deductible when used for the business only.',
  },
  { key: 'maintenance', nameHe: 'תיקונים ואחזקה', nameEn: 'Repairs and maintenance (premises, equipment)', vatDeductible: full, vatRule: 'Fully deductible.' },
  {
    key: 'travel',
    nameHe: 'נסיעות ותחבורה ציבורית',
    nameEn: 'Travel and public transport',
    vatDeductible: full,
    vatRule: 'Fully deductible where VAT was charged (taxis, domestic travel).',
  },
  {
    key: 'communication',
    nameHe: 'טלפון ואינטרנט',
    nameEn: 'Phone and internet (mixed use)',
    vatDeductible: twoThirds,
    vatRule: 'Asset used both privately and for the business: 2/3 deductible (reg. 18 practice).',
  },
  {
    key: 'vehicle_private',
    nameHe: 'הוצאות רכב פרטי',
    nameEn: 'Private vehicle running costs (fuel, repairs, leasing)',
    vatDeductible: twoThirds,
    vatRule: 'Mixed-use private vehicle (up to 3.5 t): 2/3 of the VAT (reg. 18).',
  },
  {
    key: 'vehicle_purchase',
    nameHe: 'רכישת רכב פרטי',
    nameEn: 'Purchase of a private vehicle',
    vatDeductible: none,
    vatRule:
      'VAT on buying or importing a private vehicle is not deductible (reg. 14), except for dealers in vehicles, driving schools, car rental and passenger transport.',
  },
  { key: 'vehicle_commercial', nameHe: 'רכב מסחרי', nameEn: 'Commercial vehicle (over 3.5 t) costs', vatDeductible: full, vatRule: 'Fully deductible.' },
  {
    key: 'refreshments',
    nameHe: 'כיבוד ואירוח',
    nameEn: 'Refreshments and hospitality',
    vatDeductible: none,
    vatRule: 'Hospitality: input VAT not deductible (reg. 15).',
  },
  {
    key: 'employee_benefits',
    nameHe: 'רווחת עובדים, ארוחות ומתנות לעובדים',
    nameEn: 'Employee meals, gifts and welfare',
    vatDeductible: none,
    vatRule: 'Inputs for the benefit of employees (meals, housing, gifts, entertainment): not deductible (reg. 15A).',
  },
  { key: 'gifts', nameHe: 'מתנות', nameEn: 'Gifts', vatDeductible: none, vatRule: 'Not deductible (regs. 15, 15A).' },
  { key: 'insurance', nameHe: 'ביטוח', nameEn: 'Insurance', vatDeductible: none, vatRule: 'Insurance is not subject to VAT: nothing to deduct.' },
  {
    key: 'bank_fees',
    nameHe: 'עמלות בנק',
    nameEn: 'Bank and card fees',
    vatDeductible: none,
    vatRule: 'Financial institutions charge no VAT: nothing to deduct.',
  },
  { key: 'salaries', nameHe: 'שכר', nameEn: 'Salaries', vatDeductible: none, vatRule: 'No VAT on wages.' },
  { key: 'taxes_fees', nameHe: 'אגרות ומסים', nameEn: 'Government fees and taxes', vatDeductible: none, vatRule: 'No VAT on fees and taxes.' },
  { key: 'abroad', nameHe: 'הוצאות בחו"ל', nameEn: 'Expenses abroad', vatDeductible: none, vatRule: 'Foreign VAT is not Israeli input VAT.' },
  { key: 'other', nameHe: 'אחר', nameEn: 'Other', vatDeductible: full, vatRule: 'Fully deductible; pick a specific category when a restriction applies.' },
];

const byKey = new Map(EXPENSE_CATEGORIES.map((c) => [c.key, c]));

export function categoryOf(key: string): ExpenseCategory | undefined {
  return byKey.get(key);
}

/** Supplier documents that allow deducting input VAT (a receipt alone does not). */
export const VAT_DEDUCTIBLE_DOC_TYPES = new Set(['tax_invoice', 'tax_invoice_receipt', 'credit_invoice', 'import_entry']);

/**
 * Deductible input VAT of a recorded expense, in agorot: the category's share of the VAT, rounded
 * half away from zero. Zero for exempt dealers (patur, ngo: they cannot recover input VAT) and for
 * supplier documents that are not tax invoices (or an import entry). No doc type given counts as a tax invoice.
 */
export function deductibleVat(opts: { vatAmount: number; categoryKey: string; dealerType: DealerType; supplierDocType: string | null }): number {
  if (!chargesVat(opts.dealerType)) return 0;
  if (opts.supplierDocType !== null && !VAT_DEDUCTIBLE_DOC_TYPES.has(opts.supplierDocType)) return 0;
  const c = categoryOf(opts.categoryKey);
  if (!c) throw new Error(`unknown category ${opts.categoryKey}`);
  const { numerator, denominator } = c.vatDeductible;
  if (numerator === denominator) return opts.vatAmount;
  return roundHalfAwayFromZero((opts.vatAmount * numerator) / denominator) + 0;
}
