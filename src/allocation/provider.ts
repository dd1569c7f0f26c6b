/**
 * The tax authority as the rest of the service sees it: ask for an allocation number for one
 * invoice. Two implementations: the real client of the ITA Invoices Approval API (ita-client.ts)
 * and the deterministic simulator (simulator.ts). A refusal is an answer; a transport problem
 * (network, timeout, 5xx, an unusable token) throws AllocationTransportError so callers retry.
 */
import type { AllocationProviderKind } from './lists.ts';

/** What the authority needs about one invoice. Amounts are agorot. */
export interface ApprovalInput {
  businessId: string;
  /** Our link to the request (the document id); the ITA's `invoice_id`. */
  invoiceId: string;
  invoiceType: number;
  /** The issuer's VAT number (the business tax id). */
  vatNumber: string;
  /** The printed document number; null for a draft (strict mode asks before the number exists). */
  invoiceReferenceNumber: string | null;
  customerVatNumber: string;
  customerName: string | null;
  /** Date printed on the document, YYYY-MM-DD. */
  invoiceDate: string;
  /** Date the system produced the document (today for a draft), YYYY-MM-DD. */
  invoiceIssuanceDate: string;
  amountBeforeDiscount: number;
  discount: number;
  /** Net after discount, before VAT: what the threshold is measured on. */
  paymentAmount: number;
  vatAmount: number;
  paymentAmountIncludingVat: number;
  note: string | null;
}

export type ApprovalResult =
  { status: 'approved'; allocationNumber: string; confirmationNumber: string } | { status: 'refused'; code: string; message: string };

/** Retrying may help: network error, timeout, 5xx, token trouble. */
export class AllocationTransportError extends Error {
  constructor(
    message: string,
    readonly code = 'transport',
  ) {
    super(message);
    this.name = 'AllocationTransportError';
  }
}

/** The business has not granted this service access at the authority (or the grant expired). */
export class AllocationNotConnectedError extends Error {
  constructor(message = 'the business has not connected its tax authority account (POST /v1/businesses/{bid}/allocation/connect)') {
    super(message);
    this.name = 'AllocationNotConnectedError';
  }
}

/** Tokens of one business's consent, as the token endpoint hands them out. */
export interface TokenSet {
  accessToken: string;
  /** Absolute expiry of the access token. */
  accessExpiresAt: Date;
  refreshToken: string;
  refreshExpiresAt: Date;
  scope: string | null;
  consentedOn: string | null;
}

export interface AllocationProvider {
  readonly kind: AllocationProviderKind;
  requestApproval(input: ApprovalInput): Promise<ApprovalResult>;
}

/** The consent side (OAuth2 authorization code): where to send the dealer, and the code exchange. */
export interface ConsentProvider {
  readonly kind: AllocationProviderKind;
  /** Does approval need a stored grant? (The simulator approves without one.) */
  readonly needsConnection: boolean;
  authorizationUrl(state: string): string;
  exchangeCode(code: string): Promise<TokenSet>;
}
