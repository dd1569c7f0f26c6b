/** The closed lists of a business (its dealer types: dealer-types.ts), each once: the table, the request and response schemas and the types read them. Pure. */

/** Single- or double-entry books. */
export const BOOKKEEPING_KINDS = ['single', 'double'] as const;
export type Bookkeeping = (typeof BOOKKEEPING_KINDS)[number];

/** How often the business reports VAT, as the VAT office set it. */
export const VAT_REPORTING_PERIODS = ['monthly', 'bimonthly'] as const;
export type VatReportingPeriod = (typeof VAT_REPORTING_PERIODS)[number];

/** The printed page's design. */
export const BRANDING_TEMPLATES = ['classic', 'stripe'] as const;
export type BrandingTemplate = (typeof BRANDING_TEMPLATES)[number];
