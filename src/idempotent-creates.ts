import type { IdempotentRoute } from './platform/http/idempotency.ts';

/**
 * The creates that honour `Idempotency-Key` through the generic layer (platform/http/idempotency.ts).
 * Document drafts (`POST /v1/businesses/:bid/documents`) and expense drafts
 * (`POST /v1/businesses/:bid/expenses`) are not here: they keep their own key, the same as body
 * `externalRef`, kept with the row for as long as the row (src/documents/drafts.ts, src/expenses/service.ts).
 */
export const IDEMPOTENT_CREATES: IdempotentRoute[] = [
  { method: 'POST', url: '/v1/businesses' },
  { method: 'POST', url: '/v1/businesses/:bid/parties' },
  { method: 'POST', url: '/v1/businesses/:bid/parties/find-or-create' },
  { method: 'POST', url: '/v1/businesses/:bid/documents/:id/credit-note' },
  { method: 'POST', url: '/v1/businesses/:bid/documents/:id/convert' },
  { method: 'POST', url: '/v1/webhooks' },
  // Multipart bodies carry a random boundary: fingerprinted by the receipt read, not the raw bytes.
  { method: 'POST', url: '/v1/businesses/:bid/expenses/upload', fingerprint: 'in-handler' },
  { method: 'POST', url: '/v1/businesses/:bid/expenses/scan', fingerprint: 'in-handler' },
  { method: 'POST', url: '/v1/businesses/:bid/supplier-payments' },
  { method: 'POST', url: '/v1/businesses/:bid/exports/openfrmt' },
  { method: 'POST', url: '/v1/businesses/:bid/exports/pcn874' },
  { method: 'POST', url: '/v1/businesses/:bid/backups' },
  { method: 'POST', url: '/v1/businesses/:bid/ledger/accounts' },
  { method: 'POST', url: '/v1/businesses/:bid/ledger/entries' },
  { method: 'POST', url: '/v1/businesses/:bid/ledger/entries/:id/reverse' },
  { method: 'POST', url: '/v1/businesses/:bid/ledger/periods/:period/close' },
];
