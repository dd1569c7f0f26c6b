// The document types (their table: doc-types.ts) and a document's totals: the vocabulary both the snapshot and the currency
// arithmetic speak, kept apart so that neither imports the other.

export type { DocType } from './doc-types.ts';

/** A document's figures in minor units of its currency (agorot for shekels). */
export interface Totals {
  totalExVat: number;
  vatAmount: number;
  totalIncVat: number;
  discountAmount: number;
  withholdingAmount: number;
}
