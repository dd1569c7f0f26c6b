/**
 * API routes of donation reports (under /v1, behind the key):
 *   GET  /businesses/{bid}/documents/{id}/donation-report   an issued 405's report to the digital donation system
 *   POST /businesses/{bid}/documents/{id}/donation-report   ask again for a report that failed
 */
import type { Api, ApiRequest } from '../platform/http/api.ts';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidIdParams, errors, IsoDateTime, Nullable, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { AppError } from '../platform/errors.ts';
import { businessOf } from '../businesses/index.ts';
import { getDocumentRow, type DocumentRow } from '../documents/index.ts';
import { DOC_TYPES, docTypesWhere } from '../documents/doc-types.ts';
import { reportView } from './report-state.ts';
import { getReport } from './store.ts';
import { retryFailedReport } from './retry.ts';
import { enumOf } from '../platform/http/enums.ts';
import { DONATION_REPORT_KINDS, DONATION_REPORT_STATUSES } from './lists.ts';

const DonationReport = Type.Object(
  {
    documentId: Type.String(),
    kind: enumOf(DONATION_REPORT_KINDS, {
      description: '`donation` for a 405; `cancellation` for the negative 405 its credit issued.',
    }),
    status: enumOf(DONATION_REPORT_STATUSES, {
      description:
        '`pending` until the system answers (also while live has no client: then `error` starts with `unconfigured`); `reported` with `reportNumber`; `refused` (final) or `failed` (retries ran out) with `error`.',
    }),
    reportNumber: Nullable(Type.String({ description: "The donation system's report number, printed on the receipt beside its own number; set once." })),
    cancelsReportNumber: Nullable(Type.String({ description: 'For a cancellation: the report number of the donation it cancels.' })),
    error: Nullable(Type.String()),
    requestedAt: IsoDateTime,
    decidedAt: Nullable(IsoDateTime),
  },
  { title: 'DonationReport' },
);

/** The issued donation receipt a route names; 404 for a draft or another type. */
async function donationReceiptOf(req: ApiRequest<{ params: typeof BidIdParams }>): Promise<DocumentRow> {
  const { id } = req.params;
  const d = await getDocumentRow(ctxOf(req).database.db, businessOf(req).id, id);
  if (d.status !== 'issued' || !DOC_TYPES[d.docType].donation) {
    throw new AppError('not_found', `donation report not found: only an issued donation receipt (${docTypesWhere((r) => r.donation).join(', ')}) is reported`);
  }
  return d;
}

export function registerDonationRoutes(api: Api, s: Services): void {
  api.get(
    '/businesses/:bid/documents/:id/donation-report',
    {
      config: { scope: 'documents' },
      schema: {
        tags: ['documents'],
        operationId: 'getDonationReport',
        summary: "An issued 405 donation receipt's report to the Tax Authority's digital donation system: its state and report number",
        description:
          'After issue, a 405 is reported in the background (the sandbox reports to a simulator); its credit (a negative 405) reports the cancellation. ' +
          'The PDF waits for the report number (PDF_DONATION_REPORT_WAIT_MS) and prints it. Events `document.donation_reported` and `document.donation_report_failed`. ' +
          '404 for a draft or a document of another type.',
        params: BidIdParams,
        response: { 200: Ok({ donationReport: DonationReport }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const d = await donationReceiptOf(req);
      return { ok: true as const, donationReport: reportView(d, await getReport(ctxOf(req).database.db, d.id)) };
    },
  );

  api.post(
    '/businesses/:bid/documents/:id/donation-report',
    {
      config: { scope: 'documents' },
      schema: {
        tags: ['documents'],
        operationId: 'retryDonationReport',
        summary: 'Ask the digital donation system again for a 405 whose report failed (its retries ran out)',
        description:
          'A `failed` report goes back to `pending` and is reported again in the background: 202 with the report. ' +
          'Any other state: 409 `conflict` (a report number or a refusal is final; a pending report is already being reported).',
        params: BidIdParams,
        response: { 202: Ok({ donationReport: DonationReport }), ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req, reply) => {
      const d = await donationReceiptOf(req);
      return reply.status(202).send({ ok: true, donationReport: await retryFailedReport(s, ctxOf(req), d) });
    },
  );
}
