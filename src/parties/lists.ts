/** The closed lists of a party, each once: the tables, the schemas and the types read them. Pure. */

export const PARTY_KINDS = ['customer', 'supplier', 'both'] as const;
export type PartyKind = (typeof PARTY_KINDS)[number];

/** The key series: C for customers (and parties that are both), S for suppliers. */
export const PARTY_KEY_SERIES = ['C', 'S'] as const;
export type PartyKeySeries = (typeof PARTY_KEY_SERIES)[number];
