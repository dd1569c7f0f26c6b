// The document types and a document's totals: the vocabulary both the snapshot and the currency
// arithmetic speak, kept apart so that neither imports the other.

export type DocType = 305 | 320 | 330 | 400;

/** A document's figures in minor units of its currency (agorot for shekels). */
export interface Totals {
  totalExVat: number;
  vatAmount: number;
  totalIncVat: number;
  discountAmount: number;
  withholdingAmount: number;
}
