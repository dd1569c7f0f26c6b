/**
 * The digital donation system ("תרומות ישראל", israel-tax.md §7) as the rest of the service sees it:
 * report one donation, or the cancellation of one, and get the system's report number. Two
 * implementations: the HTTP client (client.ts, its wire format in protocol.ts) and the deterministic
 * simulator of the sandbox (simulator.ts). A refusal is an answer; a transport problem (network,
 * timeout, 5xx, a refused key) throws DonationTransportError so the job retries.
 */
import type { DonationReportKind } from './lists.ts';

export type { DonationReportKind };

/** What the system needs about one donation receipt. Amounts in agorot, positive. */
export interface DonationReportInput {
  kind: DonationReportKind;
  /** Our id of the report (the document's id): the system's idempotency key, so a retry never reports twice. */
  reference: string;
  /** The institution: its tax id (ע"ר) and its section 46 approval number. */
  institutionTaxId: string;
  approvalNumber: string;
  /** The receipt (for a cancellation, the negative 405 that cancels), as printed. */
  receiptType: number;
  receiptNumber: number;
  /** YYYY-MM-DD. */
  receiptDate: string;
  donorId: string;
  donorName: string;
  /** The amount given (a cancellation: the amount it cancels), agorot > 0. */
  amount: number;
  /** A cancellation names the report of the donation it cancels. */
  cancelsReportNumber: string | null;
}

export type DonationReportResult = { status: 'reported'; reportNumber: string } | { status: 'refused'; code: string; message: string };

/** Retrying may help: network error, timeout, 5xx, a key the system does not take now. */
export class DonationTransportError extends Error {
  constructor(
    message: string,
    readonly code = 'transport',
  ) {
    super(message);
    this.name = 'DonationTransportError';
  }
}

export interface DonationReporter {
  readonly kind: 'donation-system' | 'simulator';
  report(input: DonationReportInput): Promise<DonationReportResult>;
}
