/**
 * The Document the API answers (every route that returns one, the OpenAPI component): its response
 * schema, beside the input schemas of schemas.ts.
 */
import { Type } from 'typebox';
import { IsoDateTime, Nullable } from '../platform/http/schemas.ts';
import { PAYMENT_METHOD_CODES } from './snapshot-types.ts';
import { enumOf } from '../platform/http/enums.ts';
import { ALLOCATION_STATUSES, DOCUMENT_STATUSES, EXCHANGE_RATE_SOURCES, PRICE_MODES, VAT_EXEMPTION_REASONS } from './lists.ts';
import { METADATA_DESCRIPTION, MetadataSchema, type Metadata } from '../platform/metadata.ts';

import { DocType, Language } from './schemas.ts';

const PartyOut = Type.Object({
  partyId: Nullable(Type.String()),
  key: Nullable(Type.String()),
  name: Type.String(),
  taxId: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  email: Nullable(Type.String()),
  address: Nullable(Type.String()),
});
const LineOut = Type.Object({
  description: Type.String(),
  quantity: Type.Number(),
  unitPriceExVat: Type.Integer(),
  sku: Nullable(Type.String()),
  unit: Type.String(),
  lineDiscount: Type.Integer(),
  amount: Type.Integer({ description: 'round(quantity × unitPriceExVat) − lineDiscount.' }),
  amountIls: Type.Optional(
    Type.Integer({
      description:
        'A foreign-currency document (issued from issue 29 on): the line in agorot, frozen at issue — quantity × the unit price in shekels − the line discount in shekels, each converted on its own (docs/currency.md).',
    }),
  ),
  source: Type.Optional(
    Type.Object(
      { documentId: Type.String(), docType: DocType, docNumber: Type.Integer(), index: Type.Integer({ description: "The source's line, from 0." }) },
      { description: 'A line converted from another document (POST …/convert): the issued document and line it came from (OPENFRMT D110 1256/1257).' },
    ),
  ),
});
const DocumentReferenceOut = Type.Object({ id: Type.String(), docType: DocType, docNumber: Type.Integer() });
const PaymentOut = Type.Object({
  method: Type.Enum([...PAYMENT_METHOD_CODES], {
    type: 'integer',
    description: 'The payment method code (aliases are stored as their code).',
  }),
  amount: Type.Integer(),
  dueDate: Nullable(Type.String()),
  bankCode: Nullable(Type.String()),
  branchCode: Nullable(Type.String()),
  accountNumber: Nullable(Type.String()),
  checkNumber: Nullable(Type.String()),
  cardCompany: Nullable(Type.String()),
  cardName: Nullable(Type.String()),
  cardTxType: Nullable(Type.String()),
  currency: Type.Optional(Type.String({ description: 'The currency the payment was made in, when given.' })),
  exchangeRate: Type.Optional(Nullable(Type.String())),
  originalAmount: Type.Optional(
    Type.Integer({ description: "The amount in the payment's own currency (its minor units), set at issue when that currency is not the document's." }),
  ),
  amountIls: Type.Optional(
    Type.Integer({
      description:
        "A foreign-currency document (issued from issue 29 on): the payment in agorot, frozen at issue; the payments' shekel amounts add up to what they settle (docs/currency.md).",
    }),
  ),
});
const Allocation = Type.Object({
  status: enumOf(ALLOCATION_STATUSES),
  number: Nullable(Type.String()),
  error: Nullable(Type.String()),
  requestedAt: Nullable(Type.String()),
  decidedAt: Nullable(Type.String()),
});

export const Document = Type.Object({
  id: Type.String(),
  businessId: Type.String(),
  status: enumOf(DOCUMENT_STATUSES),
  docType: DocType,
  docNumber: Nullable(Type.Integer()),
  allocationNumber: Nullable(Type.String()),
  party: Nullable(PartyOut),
  priceMode: enumOf(PRICE_MODES),
  lines: Type.Array(LineOut),
  payments: Type.Array(PaymentOut),
  note: Nullable(Type.String()),
  documentDate: Type.String(),
  valueDate: Type.String(),
  vatRateBp: Nullable(Type.Integer({ description: 'Frozen at issue; null on a draft that follows the default.' })),
  vatExemptionReason: Nullable(enumOf(VAT_EXEMPTION_REASONS)),
  totalExVat: Type.Integer(),
  vatAmount: Type.Integer(),
  totalIncVat: Type.Integer(),
  discountAmount: Type.Integer(),
  withholdingAmount: Type.Integer(),
  currency: Type.String({ description: 'ISO 4217; the money fields above, lines and payments are in its minor units.' }),
  exchangeRate: Nullable(Type.String({ description: 'Shekels for one unit of the currency; null for ILS, and on a draft that takes its rate at issue.' })),
  exchangeRateDate: Nullable(Type.String({ description: 'The date the rate is of (a Bank of Israel rate: the last published on or before documentDate).' })),
  exchangeRateSource: Nullable(
    enumOf(EXCHANGE_RATE_SOURCES, {
      description: "boi: the Bank of Israel representative rate; business: the business's agreed rate; request: given on the draft.",
    }),
  ),
  ils: Nullable(
    Type.Object(
      { totalExVat: Type.Integer(), vatAmount: Type.Integer(), totalIncVat: Type.Integer(), discountAmount: Type.Integer(), withholdingAmount: Type.Integer() },
      {
        description:
          'The five totals in agorot (equal to the main ones for ILS); frozen at issue. Null on a foreign-currency draft whose rate is taken at issue.',
      },
    ),
  ),
  language: Language,
  linkedDocumentId: Nullable(Type.String()),
  cancelledByDocumentId: Nullable(Type.String()),
  externalRef: Nullable(Type.String()),
  metadata: Type.Unsafe<Metadata>({ ...MetadataSchema, description: `${METADATA_DESCRIPTION} Frozen with the document at issue.` }),
  warnings: Type.Array(Type.Object({ code: Type.String(), message: Type.String() })),
  allocation: Nullable(Allocation),
  files: Nullable(Type.Object({ origin: Type.String(), copy: Type.String() })),
  printCount: Type.Integer(),
  issuedAt: Nullable(IsoDateTime),
  createdAt: IsoDateTime,
  convertedFrom: Type.Array(DocumentReferenceOut, { description: 'The documents its lines were converted from (POST …/convert), first line first.' }),
  convertedTo: Type.Optional(
    Type.Array(DocumentReferenceOut, {
      description:
        'The issued documents converted from this one, by type and number. On an issued document as GET, issue and credit-note answer it; lists and drafts leave it out.',
    }),
  ),
});
