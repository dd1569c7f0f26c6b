import { Type, type Static } from 'typebox';
import { IsoDate, IsoDateTime, Nullable } from '../platform/http/schemas.ts';
import { AllocationNumberInput } from '../platform/allocation-number.ts';
import { CursorQuery } from '../platform/http/cursor.ts';
import { MetadataCreate, MetadataPatch, MetadataQuery, MetadataSchema } from '../platform/metadata.ts';
import { EXPENSE_STATUSES, SUPPLIER_DOC_TYPES } from './lists.ts';
import { enumOf } from '../platform/http/enums.ts';
import { carrier, maxAgorot, maxLength } from '../openfrmt/index.ts';

/**
 * Limits of an expense's values: the OPENFRMT ledger fields that will carry it (src/openfrmt/limits.ts):
 * amounts a journal line B100/1368 (X9(12)v99), the supplier's account name B110/1404, the
 * supplier's document number the reference B100/1357.
 */
export const EXPENSE_LIMITS = {
  amountAgorot: maxAgorot('expenseAmount'),
  supplierNameChars: maxLength('supplierName'),
  docNumberChars: maxLength('expenseDocNumber'),
} as const;

const Agorot = (description: string) =>
  Type.Integer({
    minimum: -EXPENSE_LIMITS.amountAgorot,
    maximum: EXPENSE_LIMITS.amountAgorot,
    description: `${description} Magnitude at most ${EXPENSE_LIMITS.amountAgorot} (${carrier('expenseAmount')}).`,
  });
const Text = (max: number, description?: string) => Type.String({ maxLength: max, ...(description ? { description } : {}) });

export const SupplierDocType = enumOf(SUPPLIER_DOC_TYPES, {
  description: 'The supplier document: tax_invoice (305), tax_invoice_receipt (320), credit_invoice (330), receipt (400), import_entry, other.',
});

export const ExpenseStatus = enumOf(EXPENSE_STATUSES);

export const Expense = Type.Object(
  {
    id: Type.String({ description: 'Prefix `exp_`.' }),
    businessId: Type.String(),
    status: ExpenseStatus,
    source: Type.String({ description: '`manual`, `upload`, `scan`, `reversal` (a storno row) or `redraft`.' }),
    categoryKey: Nullable(Type.String({ description: 'A key of GET /expense-categories.' })),
    supplierName: Nullable(Type.String()),
    supplierTaxId: Nullable(Type.String()),
    partyId: Nullable(Type.String({ description: 'The saved supplier, when one was referenced.' })),
    supplierDocType: Nullable(SupplierDocType),
    supplierDocNumber: Nullable(Type.String()),
    supplierDocDate: Nullable(Type.String({ description: 'Date printed on the supplier document (YYYY-MM-DD); the date reports use.' })),
    allocationNumber: Nullable(Type.String()),
    amountExVat: Nullable(Type.Integer({ description: 'Agorot.' })),
    vatAmount: Nullable(Type.Integer({ description: 'Agorot.' })),
    amountIncVat: Nullable(Type.Integer({ description: 'Agorot.' })),
    deductibleVat: Nullable(
      Type.Integer({
        description:
          'Agorot of input VAT the dealer may deduct; computed at recording: the category share of the VAT, 0 for a tax invoice above the allocation threshold of its date without `allocationNumber` (docs/expenses.md).',
      }),
    ),
    warnings: Type.Array(Type.Object({ code: Type.String(), message: Type.String() }), {
      description:
        'What recording found, frozen with the row: `input_vat_needs_allocation` when the allocation rule took the input VAT away; `posted_in_open_period` when the month of the invoice was closed and the expense posted on the first open day. Empty on drafts.',
    }),
    note: Nullable(Type.String()),
    receiptFileId: Nullable(Type.String({ description: 'Download with GET /files/{id}.' })),
    ocrExtraction: Nullable(Type.Unknown({ description: 'The raw structured answer of the OCR model (rows from a scan).' })),
    reversesExpenseId: Nullable(Type.String()),
    reversedByExpenseId: Nullable(Type.String()),
    externalRef: Nullable(Type.String()),
    metadata: MetadataSchema,
    recordedAt: Nullable(IsoDateTime),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { description: 'One row of the purchase ledger (see docs/expenses.md).', title: 'Expense' },
);
export type ExpenseView = Static<typeof Expense>;

const draftFields = {
  categoryKey: Type.Optional(Nullable(Text(60))),
  supplier: Type.Optional(
    Nullable(
      Type.Object(
        {
          partyId: Type.Optional(Type.String({ maxLength: 64 })),
          name: Type.Optional(Text(EXPENSE_LIMITS.supplierNameChars, `${carrier('supplierName')}.`)),
          taxId: Type.Optional(Nullable(Text(20))),
        },
        { additionalProperties: false, description: 'A saved party (`partyId`) or inline `name`/`taxId`; inline values win over the party.' },
      ),
    ),
  ),
  supplierDocType: Type.Optional(Nullable(SupplierDocType)),
  supplierDocNumber: Type.Optional(Nullable(Text(EXPENSE_LIMITS.docNumberChars, `${carrier('expenseDocNumber')}.`))),
  supplierDocDate: Type.Optional(Nullable(IsoDate)),
  allocationNumber: Type.Optional(Nullable(AllocationNumberInput)),
  amountExVat: Type.Optional(Nullable(Agorot('Agorot before VAT.'))),
  vatAmount: Type.Optional(Nullable(Agorot('VAT in agorot.'))),
  amountIncVat: Type.Optional(Nullable(Agorot('Agorot including VAT.'))),
  note: Type.Optional(Nullable(Text(500))),
};

export const ExpenseCreate = Type.Object(
  { ...draftFields, metadata: MetadataCreate, externalRef: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
  { additionalProperties: false },
);
export type ExpenseCreateBody = Static<typeof ExpenseCreate>;

export const ExpensePatch = Type.Object({ ...draftFields, metadata: MetadataPatch }, { additionalProperties: false });
export type ExpensePatchBody = Static<typeof ExpensePatch>;

export const CorrectionBody = Type.Object(
  { redraft: Type.Optional(Type.Boolean({ description: 'Also open a new draft cloned from the corrected row.' })) },
  { additionalProperties: false },
);

export const UploadJson = Type.Object(
  {
    file: Type.String({ minLength: 1, description: 'Base64 data URI: data:image/jpeg;base64,... (JPEG, PNG, WebP, PDF).' }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const ListQuery = Type.Object(
  {
    status: Type.Optional(ExpenseStatus),
    categoryKey: Type.Optional(Type.String({ maxLength: 60 })),
    from: Type.Optional(IsoDate),
    to: Type.Optional(IsoDate),
    take: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
    skip: Type.Optional(
      Type.Integer({ minimum: 0, default: 0, description: 'Offset within the page (after `cursor`); rows inserted meanwhile shift it: page with `cursor`.' }),
    ),
    before: Type.Optional({
      ...IsoDateTime,
      description:
        "Time cursor (kept for compatibility): rows created strictly before this instant. Rows sharing the instant of a page's last row are skipped: page with `cursor`.",
    }),
    cursor: Type.Optional(CursorQuery),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    counts: Type.Optional(Type.Literal('1')),
    metadata: MetadataQuery,
  },
  { additionalProperties: false },
);
export type ListQueryValue = Static<typeof ListQuery>;

export const Category = Type.Object({
  key: Type.String(),
  nameHe: Type.String(),
  nameEn: Type.String(),
  vatDeductible: Type.Object({ numerator: Type.Integer(), denominator: Type.Integer() }),
  vatRule: Type.String(),
});
