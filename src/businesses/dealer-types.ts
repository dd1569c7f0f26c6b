/**
 * The kinds of dealer a business is (VAT-exempt, licensed, company, non-profit). A pure table: the document types
 * (documents/doc-types.ts), the expense categories and the ledger read it without loading the businesses domain.
 */
export const DEALER_TYPES = ['patur', 'murshe', 'company', 'ngo'] as const;
export type DealerType = (typeof DEALER_TYPES)[number];
