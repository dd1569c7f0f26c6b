/** The closed lists of a donation report, each once: the table, the route schema and the types read them. Pure. */

/** `donation` for a 405; `cancellation` for the negative 405 its credit issued. */
export const DONATION_REPORT_KINDS = ['donation', 'cancellation'] as const;
export type DonationReportKind = (typeof DONATION_REPORT_KINDS)[number];

export const DONATION_REPORT_STATUSES = ['pending', 'reported', 'refused', 'failed'] as const;
