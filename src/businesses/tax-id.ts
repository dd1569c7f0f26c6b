/** The tax-id check is shared plumbing (configuration validates the software maker's id with it). */
export * from '../platform/tax-id.ts';
