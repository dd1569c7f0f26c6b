/** The wire shapes of the VAT report by period and of its traceable lines (see report.ts). */
import { Type } from 'typebox';
import { IsoDate, Nullable } from '../platform/http/schemas.ts';
import { enumOf } from '../platform/http/enums.ts';
import { VAT_REPORTING_PERIODS } from '../businesses/index.ts';
import { ENTRY_SOURCES } from '../ledger/index.ts';
import { TREATMENTS } from './report.ts';

const Int = Type.Integer();

export const VatPeriodString = Type.String({
  pattern: '^\\d{4}-\\d{2}(/\\d{4}-\\d{2})?$',
  description:
    "A VAT period: `YYYY-MM` (the business's period holding that month: the month, or its two months for a `bimonthly` business) or `YYYY-MM/YYYY-MM` (two months starting in an odd month, for any business)",
  examples: ['2026-02', '2026-01/2026-02'],
});

export const VatQuery = Type.Object(
  {
    period: Type.Optional(VatPeriodString),
    from: Type.Optional(IsoDate),
    to: Type.Optional(IsoDate),
  },
  { additionalProperties: false, description: '`period` (figures from the ledger) or `from` and `to` (figures from documents and expenses); not both' },
);

/** Answered with `period` only (from the ledger). */
export const LedgerVatFields = {
  period: Type.Optional(VatPeriodString),
  kind: Type.Optional(enumOf(VAT_REPORTING_PERIODS)),
  source: Type.Optional(
    Type.Literal('ledger', {
      description: "The figures are the ledger's accounts 2200, 1400, 1410 and revenue 4000–4100 over the entries dated in the period",
    }),
  ),
  inputVatFixedAssets: Type.Optional(Int),
  sales: Type.Optional(
    Type.Object({ taxable: Int, zeroRatedExport: Int, eilat: Int, exempt: Int, count: Int }, { description: 'Ex VAT by treatment; count = documents' }),
  ),
  inputs: Type.Optional(Type.Object({ exVat: Int, count: Int }, { description: 'Recorded expenses (and stornos) that posted input VAT' })),
  adjustments: Type.Optional(
    Type.Object(
      { outputVat: Int, inputVat: Int, inputVatFixedAssets: Int, count: Int },
      { description: 'Manual entries on the VAT accounts, included in the figures' },
    ),
  ),
};

export const VatLinesQuery = Type.Object(
  {
    period: VatPeriodString,
    after: Type.Optional(Type.Integer({ minimum: 0, description: 'The last `entryNo` of the previous page (`nextAfter`)' })),
    take: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);

export const VatLineSchema = Type.Object({
  entryNo: Int,
  entryId: Type.String(),
  entryDate: IsoDate,
  source: enumOf(ENTRY_SOURCES),
  treatment: Nullable(enumOf(TREATMENTS)),
  exVat: Int,
  outputVat: Int,
  inputVat: Int,
  inputVatFixedAssets: Int,
  document: Nullable(
    Type.Object({
      id: Type.String(),
      docType: Int,
      docNumber: Int,
      date: IsoDate,
      partyName: Nullable(Type.String()),
      partyTaxId: Nullable(Type.String()),
      allocationNumber: Nullable(Type.String()),
    }),
  ),
  expense: Nullable(
    Type.Object({
      id: Type.String(),
      supplierName: Type.String(),
      supplierTaxId: Nullable(Type.String()),
      supplierDocNumber: Nullable(Type.String()),
      allocationNumber: Nullable(Type.String({ description: "The supplier invoice's allocation number (Israel Invoices), when the expense holds one." })),
      date: IsoDate,
      storno: Type.Boolean(),
    }),
  ),
});
