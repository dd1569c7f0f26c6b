/**
 * The form of an allocation number (Israel Invoices, מספר הקצאה), one rule for the sales side (a
 * document's number held by the caller) and the purchase side (the number on a supplier's invoice):
 * nine digits (israel-tax.md §4.1, "מספר הקצאה בן 9 ספרות"; the authority's confirmation number is
 * longer and its 9 right-most digits are printed, §4.6), and not all zeros — `000000000` is what the
 * PCN874 file writes when there is no number.
 */
import { Type } from 'typebox';

export const ALLOCATION_NUMBER_PATTERN = '^(?!0{9}$)\\d{9}$';
const FORM = new RegExp(ALLOCATION_NUMBER_PATTERN);

export function isAllocationNumber(text: string): boolean {
  return FORM.test(text);
}

/** The request field: refused with 400 `validation` naming it when it is not of the form. */
export const AllocationNumberInput = Type.String({
  pattern: ALLOCATION_NUMBER_PATTERN,
  description: "The allocation number (Israel Invoices): 9 digits, not all zeros (the 9 right-most digits of the authority's confirmation number).",
});
