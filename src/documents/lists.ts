/**
 * The closed lists of a document, each once: the table's column types (tables.ts), the request and response
 * schemas (schemas.ts, document-schema.ts) and the types (snapshot.ts) read them. Pure.
 */

export const DOCUMENT_STATUSES = ['draft', 'issued'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

export const PRICE_MODES = ['net', 'gross'] as const;
export type PriceMode = (typeof PRICE_MODES)[number];

export const VAT_EXEMPTION_REASONS = ['eilat', 'export', 'exempt'] as const;
export type VatExemptionReason = (typeof VAT_EXEMPTION_REASONS)[number];

/** A document's printed language (issue 21): Hebrew, English, or both side by side. */
export const DOCUMENT_LANGUAGES = ['he', 'en', 'he+en'] as const;
export type DocumentLanguage = (typeof DOCUMENT_LANGUAGES)[number];

/** Where an exchange rate came from: the Bank of Israel, the business's own agreed rate, or the request. */
export const EXCHANGE_RATE_SOURCES = ['boi', 'business', 'request'] as const;
export type ExchangeRateSource = (typeof EXCHANGE_RATE_SOURCES)[number];

export const ALLOCATION_STATUSES = ['not_required', 'pending', 'granted', 'refused', 'failed'] as const;
export type AllocationStatus = (typeof ALLOCATION_STATUSES)[number];
