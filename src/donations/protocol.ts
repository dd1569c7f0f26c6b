/**
 * The wire format of the donation system's client (pure). AN ASSUMPTION: the Tax Authority has published no
 * interface for software that reports donations (israel-tax.md §7 cites secondary sources only), so this is
 * the smallest exchange that carries what the sources say a report holds (institution and approval, the
 * receipt, the donor's ID number, the amount; a cancellation naming the report it cancels) and answers a
 * report number. docs/donations.md describes it; replace it here when the published specification arrives.
 *
 *   POST {DONATIONS_API_URL}/donation-reports
 *   Authorization: Bearer {DONATIONS_API_KEY}
 *   Idempotency-Key: {reference}
 *   → 200/201 {"reportNumber": "…"}
 *   → 400/409/422 {"code": "…", "message": "…"}   refused (final)
 *   → anything else                                  a transport failure (retried)
 */
import type { DonationReportInput, DonationReportResult } from './provider.ts';
import { DonationTransportError } from './provider.ts';

/** The request's JSON body. */
export function reportRequestBody(i: DonationReportInput) {
  return {
    type: i.kind,
    reference: i.reference,
    institution: { taxId: i.institutionTaxId, section46Approval: i.approvalNumber },
    receipt: { docType: i.receiptType, number: String(i.receiptNumber), date: i.receiptDate },
    donor: { idNumber: i.donorId, name: i.donorName },
    // Shekels with two decimals, as a string: no binary fractions on the wire.
    amount: (i.amount / 100).toFixed(2),
    currency: 'ILS',
    cancelsReportNumber: i.cancelsReportNumber,
  };
}

/** A report number as the assumed interface writes it: 1 to 30 letters, digits or dashes. */
const REPORT_NUMBER = /^[0-9A-Za-z-]{1,30}$/;

/** The answer, classified: a number, a refusal, or (thrown) a failure worth retrying. */
export function classifyReportAnswer(status: number, json: unknown): DonationReportResult {
  const body = (json ?? {}) as Record<string, unknown>;
  if (status === 200 || status === 201) {
    const n = body.reportNumber;
    if (typeof n === 'string' && REPORT_NUMBER.test(n)) return { status: 'reported', reportNumber: n };
    throw new DonationTransportError(`the donation system answered HTTP ${status} without a usable reportNumber`, 'bad_answer');
  }
  if (status === 400 || status === 409 || status === 422) {
    const code = typeof body.code === 'string' && body.code !== '' ? body.code : `http_${status}`;
    const message = typeof body.message === 'string' && body.message !== '' ? body.message : `refused with HTTP ${status}`;
    return { status: 'refused', code, message };
  }
  // 401/403: the key (configuration) is wrong or expired; 5xx and the rest: the system's trouble. Both may pass.
  throw new DonationTransportError(`the donation system answered HTTP ${status}`, `http_${status}`);
}
