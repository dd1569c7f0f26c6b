/**
 * Every event the service records in the outbox and delivers to webhooks: its name and the shape of
 * its `data` (the envelope around it is the dispatcher's). The webhook event enum, the outbox's
 * accepted names and docs/webhooks.md come from here; adding an event starts here.
 */
import { Type, type Static, type TSchema } from 'typebox';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const FileRef = Type.Object({ id: Type.String(), slug: Type.String() });

export const EVENTS = {
  'document.issued': {
    description: 'A document (or a credit note) was issued.',
    data: Type.Object({
      documentId: Type.String(),
      docType: Type.Integer(),
      docNumber: Nullable(Type.Integer()),
      totalIncVat: Type.Integer({ description: 'Minor units of `currency`.' }),
      currency: Type.String(),
      totalIncVatIls: Type.Integer({ description: 'Agorot.' }),
      partyName: Nullable(Type.String()),
      externalRef: Nullable(Type.String()),
    }),
  },
  'document.pdf_ready': {
    description: 'The signed PDFs (origin and copy) of an issued document are stored and linked.',
    data: Type.Object({ documentId: Type.String(), files: Type.Object({ origin: FileRef, copy: FileRef }) }),
  },
  'document.allocation_assigned': {
    description: 'The tax authority gave an issued document its allocation number.',
    data: Type.Object({ documentId: Type.String(), allocationNumber: Type.String() }),
  },
  'document.allocation_failed': {
    description: 'The allocation number was refused, or asking for it failed for good.',
    data: Type.Object({
      documentId: Type.String(),
      status: Type.Union([Type.Literal('refused'), Type.Literal('failed')]),
      code: Nullable(Type.String()),
      message: Type.String(),
    }),
  },
  'document.donation_reported': {
    description:
      'The digital donation system took the report of an issued 405 donation receipt (kind `donation`) or of its cancellation by a credit (kind `cancellation`), and gave its report number.',
    data: Type.Object({
      documentId: Type.String(),
      kind: Type.Union([Type.Literal('donation'), Type.Literal('cancellation')]),
      reportNumber: Type.String(),
      cancelsReportNumber: Nullable(Type.String({ description: 'For a cancellation: the report number of the donation it cancels.' })),
    }),
  },
  'document.donation_report_failed': {
    description: 'The digital donation system refused the report of a 405 (or of its cancellation), or reporting it failed for good.',
    data: Type.Object({
      documentId: Type.String(),
      kind: Type.Union([Type.Literal('donation'), Type.Literal('cancellation')]),
      status: Type.Union([Type.Literal('refused'), Type.Literal('failed')]),
      code: Nullable(Type.String()),
      message: Type.String(),
    }),
  },
  'allocation.connection_expiring': {
    description: "The business's connection to the tax authority expires soon (or has expired).",
    data: Type.Object({ businessId: Type.String(), expiresAt: Type.String(), expired: Type.Boolean() }),
  },
  'expense.recorded': {
    description: 'An expense was recorded (frozen) in the books.',
    data: Type.Object({ expenseId: Type.String(), amountIncVat: Nullable(Type.Integer()), supplierName: Nullable(Type.String()) }),
  },
  'ledger.period_reopened': {
    description: 'A closed month of the books was reopened (the last one closed), with the reason given.',
    data: Type.Object({ businessId: Type.String(), period: Type.String({ description: 'YYYY-MM' }), reason: Type.String() }),
  },
  'export.completed': {
    description: 'An OPENFRMT or PCN874 export run passed its verification; its file is ready.',
    data: Type.Object({ exportRunId: Type.String(), fileId: Type.String(), recordCount: Type.Integer() }),
  },
  'business.status_changed': {
    description: "A business's standing changed: approval status, or deactivated / reactivated.",
    data: Type.Object({
      businessId: Type.String(),
      approvalStatus: Type.String(),
      previousStatus: Type.String(),
      active: Type.Boolean(),
      writesOpen: Type.Boolean(),
    }),
  },
  'webhook.test': {
    description: 'A synthetic delivery asked for with POST /v1/webhooks/{id}/test (never in the outbox).',
    data: Type.Object({ webhookId: Type.String(), message: Type.String() }),
  },
} as const satisfies Record<string, { description: string; data: TSchema }>;

export type EventName = keyof typeof EVENTS;

/** The names, in catalog order (the order of the OpenAPI enum). */
export const EVENT_NAMES: readonly EventName[] = Object.keys(EVENTS) as EventName[];

/** The `data` of one event. */
export type EventData<E extends EventName> = Static<(typeof EVENTS)[E]['data']>;
