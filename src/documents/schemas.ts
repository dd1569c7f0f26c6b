import { Type, type Static, type TLiteral, type TUnion } from 'typebox';
import { AllocationNumberInput } from '../platform/allocation-number.ts';
import { IsoDate, IsoDateTime, Nullable } from '../platform/http/schemas.ts';
import { CursorQuery } from '../platform/http/cursor.ts';
import { BrandingInput } from '../businesses/index.ts';
import { carrier, maxAgorot, maxLength, maxScaled, maxValue } from '../openfrmt/index.ts';
import { DOC_TYPE_CODES, DOC_TYPE_RULES, DOC_TYPES, DRAFT_DOC_TYPE_CODES, docTypesWhere, listOfCodes, type DocType as DocTypeCode } from './doc-types.ts';
import { PAYMENT_METHOD_CODES, PAYMENT_METHOD_NAMES, type PaymentMethodName } from './snapshot-types.ts';
import { CURRENCY_CODES } from '../platform/currencies.ts';
import { EXCHANGE_RATE_PATTERN } from './currency.ts';
import { MetadataCreate, MetadataPatch, MetadataQuery } from '../platform/metadata.ts';
import { enumOf } from '../platform/http/enums.ts';
import { DOCUMENT_LANGUAGES, DOCUMENT_STATUSES, PRICE_MODES, VAT_EXEMPTION_REASONS } from './lists.ts';

export const NOTE_MAX = 500;

const PAYMENT_ALIASES = Object.keys(PAYMENT_METHOD_NAMES) as PaymentMethodName[];

const str = (max: number) => Type.String({ maxLength: max });

/** An ISO 4217 code (docs/currency.md). */
export const CurrencyCode = (description: string) => enumOf(CURRENCY_CODES, { description });
/** Shekels for one unit of a currency, as a decimal string (never a float). */
export const ExchangeRate = (description: string) => Type.String({ pattern: EXCHANGE_RATE_PATTERN, maxLength: 17, description, examples: ['3.6540'] });
export const Language = enumOf(DOCUMENT_LANGUAGES, {
  description: 'The printed language: he (default), en, or he+en (bilingual); frozen at issue.',
});

/**
 * Limits of the values a draft takes, each the capacity of the OPENFRMT field that will carry it
 * (src/openfrmt/limits.ts): a value the export could not write is refused at the door.
 */
export const LIMITS = {
  descriptionChars: maxLength('lineDescription'),
  skuChars: maxLength('lineSku'),
  unitChars: maxLength('lineUnit'),
  quantity: maxValue('quantity'),
  unitPriceAgorot: maxAgorot('unitPrice'),
  lineDiscountAgorot: maxAgorot('lineDiscount'),
  paymentAgorot: maxAgorot('paymentAmount'),
  discountAgorot: maxAgorot('discount'),
  withholdingAgorot: maxAgorot('withholding'),
  vatRateBp: maxScaled('vatRate'),
  partyNameChars: maxLength('partyName'),
  partyAddressChars: maxLength('partyAddress'),
  partyPhoneChars: maxLength('partyPhone'),
  cardNameChars: maxLength('cardName'),
} as const;

const agorot = (max: number, field: Parameters<typeof carrier>[0], description: string, minimum = 0) =>
  Type.Integer({ minimum, maximum: max, description: `${description} At most ${max} (${carrier(field)}).` });

export const LineInput = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: LIMITS.descriptionChars, description: `${carrier('lineDescription')}.` }),
    quantity: Type.Number({
      exclusiveMinimum: 0,
      maximum: LIMITS.quantity,
      description: `May be fractional, at most 4 decimals (${carrier('quantity')}).`,
    }),
    unitPriceExVat: agorot(LIMITS.unitPriceAgorot, 'unitPrice', "Minor units of the document's currency (agorot for ILS); VAT-inclusive in gross mode."),
    sku: Type.Optional(Nullable(Type.String({ maxLength: LIMITS.skuChars, description: `${carrier('lineSku')}.` }))),
    unit: Type.Optional(Nullable(Type.String({ maxLength: LIMITS.unitChars, description: `${carrier('lineUnit')}.` }))),
    lineDiscount: Type.Optional(Nullable(agorot(LIMITS.lineDiscountAgorot, 'lineDiscount', "Minor units of the document's currency."))),
  },
  { additionalProperties: false },
);
export type LineInputBody = Static<typeof LineInput>;

export const PaymentInput = Type.Object(
  {
    method: Type.Union([Type.Union(PAYMENT_METHOD_CODES.map((c) => Type.Literal(c))), Type.Union(PAYMENT_ALIASES.map((a) => Type.Literal(a)))], {
      description: 'Integer code 1, 2, 3, 4, 5, 8, 9, 91, 92, 93 or a string alias; stored as the integer code.',
    }),
    amount: agorot(LIMITS.paymentAgorot, 'paymentAmount', "Minor units of the document's currency.", 1),
    dueDate: Type.Optional(Nullable(IsoDate)),
    bankCode: Type.Optional(Nullable(str(20))),
    branchCode: Type.Optional(Nullable(str(20))),
    accountNumber: Type.Optional(Nullable(str(40))),
    checkNumber: Type.Optional(Nullable(str(40))),
    cardCompany: Type.Optional(Nullable(str(40))),
    cardName: Type.Optional(Nullable(Type.String({ maxLength: LIMITS.cardNameChars, description: `${carrier('cardName')}.` }))),
    cardTxType: Type.Optional(Nullable(str(40))),
    currency: Type.Optional(
      Nullable(
        CurrencyCode(
          "The currency the payment was made in, when not the document's (informational: `amount` stays in the document's currency). Default: the document's.",
        ),
      ),
    ),
    exchangeRate: Type.Optional(
      Nullable(
        ExchangeRate("Shekels for one unit of the payment's `currency`; only when that currency is neither ILS nor the document's, where it is required."),
      ),
    ),
  },
  { additionalProperties: false },
);
export type PaymentInputBody = Static<typeof PaymentInput>;

const PartyRef = Type.Object({ partyId: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
const PartyInline = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: LIMITS.partyNameChars, description: `${carrier('partyName')}.` }),
    taxId: Type.Optional(Nullable(str(20))),
    phone: Type.Optional(Nullable(Type.String({ maxLength: LIMITS.partyPhoneChars, description: `${carrier('partyPhone')}.` }))),
    email: Type.Optional(Nullable(str(200))),
    address: Type.Optional(Nullable(Type.String({ maxLength: LIMITS.partyAddressChars, description: `${carrier('partyAddress')}.` }))),
  },
  { additionalProperties: false },
);
export const PartyInput = Type.Union([PartyRef, PartyInline], {
  description: '`{partyId}` of a saved party, or an inline party. Omit (or null) for an anonymous receipt.',
});
export type PartyInputBody = Static<typeof PartyInput>;

/** Every document type, from the doc-types table. */
export const DocType = Type.Enum([...DOC_TYPE_CODES], {
  // `type` too: a query string value is coerced to the type before the enum is checked.
  type: 'integer',
  description: `${DOC_TYPE_CODES.map((c) => `${c} ${DOC_TYPES[c].name}`).join(', ')}.`,
});

// The draft types' literals (an anyOf of consts in the OpenAPI document). Typed as one literal of
// the DocType union: TypeBox infers a union's type from a tuple, and the list is built from the table.
const DocTypeInput = Type.Union(
  DRAFT_DOC_TYPE_CODES.map((c) => Type.Literal(c)),
  {
    description: `${listOfCodes(DRAFT_DOC_TYPE_CODES, 'or')}; a ${listOfCodes(
      docTypesWhere((r) => r.createdBy === 'credit-note'),
      'or',
    )} is created only by the credit-note endpoint.`,
  },
) as unknown as TUnion<[TLiteral<DocTypeCode>]>;

const draftFields = {
  party: Type.Optional(Nullable(PartyInput)),
  priceMode: Type.Optional(enumOf(PRICE_MODES)),
  lines: Type.Optional(Type.Array(LineInput, { maxItems: 500 })),
  payments: Type.Optional(Type.Array(PaymentInput, { maxItems: 100 })),
  note: Type.Optional(Nullable(Type.String({ maxLength: NOTE_MAX }))),
  documentDate: Type.Optional(IsoDate),
  valueDate: Type.Optional(IsoDate),
  discountAmount: Type.Optional(agorot(LIMITS.discountAgorot, 'discount', "Minor units of the document's currency.")),
  withholdingAmount: Type.Optional(agorot(LIMITS.withholdingAgorot, 'withholding', "Minor units of the document's currency.")),
  vatRateBp: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 0,
        maximum: LIMITS.vatRateBp,
        description:
          'null follows the rate in force (the business default, else the statutory rate on documentDate); otherwise that same rate, or 0 with a vatExemptionReason.',
      }),
    ),
  ),
  vatExemptionReason: Type.Optional(Nullable(enumOf(VAT_EXEMPTION_REASONS))),
  allocationNumber: Type.Optional(Nullable(AllocationNumberInput)),
  currency: Type.Optional(
    CurrencyCode(
      "ISO 4217; default ILS. Every amount of the document (lines, payments, discount, withholding) is in this currency's minor units (cents; yen for JPY; fils for KWD).",
    ),
  ),
  exchangeRate: Type.Optional(
    Nullable(
      ExchangeRate(
        "Shekels for one unit of `currency`, as precise as its source. Omit (or null) to take, at issue, the business's agreed rate or else the Bank of Israel representative rate of documentDate (docs/currency.md). Not allowed for ILS.",
      ),
    ),
  ),
  language: Type.Optional(Language),
};

export const DraftCreate = Type.Object(
  { docType: DocTypeInput, ...draftFields, metadata: MetadataCreate, externalRef: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
  {
    additionalProperties: false,
    examples: [
      {
        docType: 320,
        party: { name: 'דנה כהן', taxId: '123456782' },
        lines: [{ description: 'ייעוץ מקצועי', quantity: 2, unitPriceExVat: 10000 }],
        payments: [{ method: 'transfer', amount: 23600 }],
        externalRef: 'order-1001',
      },
    ],
  },
);
export type DraftCreateBody = Static<typeof DraftCreate>;

export const DraftPatch = Type.Object(
  { docType: Type.Optional(DocTypeInput), ...draftFields, metadata: MetadataPatch },
  { additionalProperties: false, description: 'Fields given replace the stored ones; docType may be left out.' },
);
export type DraftPatchBody = Static<typeof DraftPatch>;

export const IssueBody = Type.Object(
  { branding: Type.Optional(BrandingInput) },
  { additionalProperties: false, description: 'Optional.', examples: [{}, { branding: { accentColor: '#1A73E8', template: 'stripe' } }] },
);
export type IssueBodyInput = Static<typeof IssueBody>;

export const CreditNoteBody = Type.Object(
  {
    reason: Type.Optional(Type.String({ maxLength: NOTE_MAX, description: 'Printed on the credit note as its note.' })),
    lines: Type.Optional(
      Type.Array(
        Type.Object(
          {
            index: Type.Integer({ minimum: 0, maximum: 499, description: "The line's position among the original's lines, from 0." }),
            quantity: Type.Number({
              exclusiveMinimum: 0,
              maximum: LIMITS.quantity,
              description: `How much of the line to credit, at most what earlier credits left of it; at most 4 decimals (${carrier('quantity')}).`,
            }),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 500,
          description:
            "A partial credit of chosen lines (305/320, in any currency: a foreign one's at the original's rate). Not of a receipt (400), which is reversed whole. Leave out `lines` and `amount` to credit the whole document.",
        },
      ),
    ),
    amount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: maxAgorot('totalExVat'),
        description:
          "A partial credit of an amount before VAT, in the original's minor units (agorot for shekels); its VAT at the original's rate. 305/320 only, not a receipt. Not with `lines`.",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Optional. With neither `lines` nor `amount`, the whole document (after partial credits: what they left). Credits of one document never pass its total: beyond the remainder answers 409 `conflict`.',
    examples: [{}, { reason: 'החזרה חלקית', lines: [{ index: 0, quantity: 1 }] }, { amount: 10000 }],
  },
);

export const ConvertBody = Type.Object(
  {
    // Any draft type: a pair the types do not make answers 409 conflict naming what the source converts into.
    docType: Type.Union(
      DRAFT_DOC_TYPE_CODES.map((c) => Type.Literal(c)),
      {
        description: `The type of the draft: ${DOC_TYPE_RULES.filter((r) => r.convertsTo.length > 0)
          .map((r) => `a ${r.code} into ${listOfCodes(r.convertsTo, 'or')}`)
          .join('; ')}. Any other pair answers 409 conflict.`,
      },
    ) as unknown as TUnion<[TLiteral<DocTypeCode>]>,
    lines: Type.Optional(
      Type.Array(
        Type.Object(
          {
            index: Type.Integer({ minimum: 0, maximum: 499, description: "The line's position among the source's lines, from 0." }),
            quantity: Type.Number({
              exclusiveMinimum: 0,
              maximum: LIMITS.quantity,
              description: `How much of the line, at most what the source's other issued conversions of this stage left; at most 4 decimals (${carrier('quantity')}).`,
            }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 500, description: 'A part of the source (a partial delivery or invoice). Leave out to take what is left of every line.' },
      ),
    ),
    draftId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Add the lines to this converted draft of the same type and party (one invoice for two delivery notes) instead of a new draft.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListQuery = Type.Object(
  {
    status: Type.Optional(enumOf(DOCUMENT_STATUSES)),
    docType: Type.Optional(DocType),
    from: Type.Optional(IsoDate),
    to: Type.Optional(IsoDate),
    take: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
    before: Type.Optional({
      ...IsoDateTime,
      description:
        "Time cursor (kept for compatibility): rows created strictly before this instant. Rows sharing the instant of a page's last row are skipped: page with `cursor`.",
    }),
    cursor: Type.Optional(CursorQuery),
    externalRefPrefix: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    partyId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    skip: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        default: 0,
        description: 'Offset within the page (after `cursor`); rows inserted meanwhile shift it: page with `cursor`.',
      }),
    ),
    counts: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0')])),
    metadata: MetadataQuery,
  },
  { additionalProperties: false },
);
export type ListQueryInput = Static<typeof ListQuery>;
