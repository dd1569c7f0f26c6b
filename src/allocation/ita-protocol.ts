/**
 * The wire format of the ITA Invoices Approval API v2 (israel-tax.md §4.4–4.6), as pure functions:
 * the request body, the token response, and the classification of an approval answer.
 */
import { isAllocationNumber } from '../platform/allocation-number.ts';
import { AllocationTransportError, type ApprovalInput, type ApprovalResult, type TokenSet } from './provider.ts';

/** Agorot → a JSON number with two decimals (N12.2). */
export const shekels = (agorot: number): number => Math.round(agorot) / 100;

/** v2 wants VAT numbers as JSON numbers, not strings (clients report string numbers refused). */
const vatNumber = (taxId: string): number => Number(taxId.replace(/\D/g, ''));

export function approvalRequestBody(input: ApprovalInput, softwareNumber: number): Record<string, unknown> {
  const body: Record<string, unknown> = {
    invoice_id: input.invoiceId.slice(0, 50),
    invoice_type: input.invoiceType,
    vat_number: vatNumber(input.vatNumber),
    customer_vat_number: vatNumber(input.customerVatNumber),
    invoice_date: input.invoiceDate,
    invoice_issuance_date: input.invoiceIssuanceDate,
    accounting_software_number: softwareNumber,
    amount_before_discount: shekels(input.amountBeforeDiscount),
    discount: shekels(Math.abs(input.discount)),
    payment_amount: shekels(input.paymentAmount),
    vat_amount: shekels(input.vatAmount),
    payment_amount_including_vat: shekels(input.paymentAmountIncludingVat),
  };
  if (input.invoiceReferenceNumber) body.invoice_reference_number = input.invoiceReferenceNumber.slice(0, 20);
  if (input.customerName) body.customer_name = input.customerName.slice(0, 25);
  if (input.note) body.invoice_note = input.note.slice(0, 100);
  return body;
}

/** The allocation number printed on the invoice: the 9 right-most digits of the confirmation number. */
export function allocationNumberOf(confirmation: string): string | null {
  const number = confirmation.replace(/\D/g, '').slice(-9);
  return isAllocationNumber(number) ? number : null;
}

/** A token endpoint answer (authorization_code or refresh_token grant) → absolute expiries. */
export function parseTokenResponse(body: unknown, now: Date): TokenSet {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.access_token !== 'string' || typeof b.refresh_token !== 'string') {
    throw new AllocationTransportError('the token endpoint answered without access_token/refresh_token', 'token');
  }
  const seconds = (v: unknown, fallback: number) => (typeof v === 'number' && v > 0 ? v : Number(v) > 0 ? Number(v) : fallback);
  return {
    accessToken: b.access_token,
    accessExpiresAt: new Date(now.getTime() + seconds(b.expires_in, 600) * 1000),
    refreshToken: b.refresh_token,
    refreshExpiresAt: new Date(now.getTime() + seconds(b.refresh_token_expires_in, 2_592_000) * 1000),
    scope: typeof b.scope === 'string' ? b.scope : null,
    consentedOn: b.consented_on === undefined || b.consented_on === null ? null : String(b.consented_on),
  };
}

function firstError(b: Record<string, unknown>): { code: string; message: string } | null {
  const message = b.Message ?? b.message;
  const lists = [(message as Record<string, unknown> | undefined)?.errors, b.errors, (b.Message as Record<string, unknown> | undefined)?.Errors];
  for (const list of lists) {
    if (Array.isArray(list) && list.length > 0) {
      const e = list[0] as Record<string, unknown>;
      const code = String(e.code ?? e.Code ?? 'unknown');
      const text = String(e.message ?? e.Message ?? 'refused');
      const param = e.param ?? e.Param;
      return { code, message: param ? `${text} (${String(param)})` : text };
    }
  }
  return null;
}

export type ApprovalAnswer = ApprovalResult | { status: 'unauthorized' };

/**
 * Classifies one HTTP answer of `Invoices/v2/Approval`:
 * approved (a confirmation number), refused (a validation or decision error: retrying the same
 * invoice cannot help), unauthorized (401: refresh the token and try once more), or throws
 * AllocationTransportError (5xx and anything unreadable: retry later).
 */
export function classifyApprovalAnswer(httpStatus: number, body: unknown): ApprovalAnswer {
  if (httpStatus === 401) return { status: 'unauthorized' };
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  if (httpStatus === 406) {
    return { status: 'refused', code: '406', message: 'the VAT number has not been authorised for this application (Not Acceptable)' };
  }
  if (httpStatus === 422) {
    return {
      status: 'refused',
      code: '422',
      message: `the gateway rejected the request schema: ${String(b.moreInformation ?? b.Message ?? b.message ?? '')}`.trim(),
    };
  }
  if (httpStatus >= 500 || httpStatus === 429 || httpStatus === 408) {
    throw new AllocationTransportError(`the tax authority answered HTTP ${httpStatus}`, `http_${httpStatus}`);
  }
  if (httpStatus !== 200 && httpStatus !== 201 && httpStatus !== 400) {
    throw new AllocationTransportError(`unexpected HTTP ${httpStatus} from the tax authority`, `http_${httpStatus}`);
  }
  const error = firstError(b);
  const confirmation = String(b.Confirmation_Number ?? b.confirmation_number ?? '0');
  const approved = b.approved === true || (b.approved === undefined && Number(b.Status ?? b.status) === 200);
  if (!error && approved && httpStatus !== 400) {
    const number = allocationNumberOf(confirmation);
    if (number) return { status: 'approved', allocationNumber: number, confirmationNumber: confirmation };
    throw new AllocationTransportError('the tax authority approved without a usable confirmation number', 'bad_answer');
  }
  if (error) return { status: 'refused', ...error };
  if (b.approved === false || httpStatus === 400) {
    return { status: 'refused', code: String(b.Status ?? b.status ?? httpStatus), message: String(typeof b.Message === 'string' ? b.Message : 'refused') };
  }
  throw new AllocationTransportError('unreadable answer from the tax authority', 'bad_answer');
}
