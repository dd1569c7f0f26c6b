import { Type, type Static } from 'typebox';
import { IsoDate, IsoDateTime, Nullable } from '../platform/http/schemas.ts';
import { carrier, maxLength, maxScaled } from '../openfrmt/index.ts';
import { APPROVAL_STATUSES } from '../accounts/index.ts';
import { enumOf } from '../platform/http/enums.ts';
import { BOOKKEEPING_KINDS, BRANDING_TEMPLATES, VAT_REPORTING_PERIODS } from './lists.ts';
import { MetadataCreate, MetadataPatch, MetadataSchema } from '../platform/metadata.ts';
import { DOC_TYPE_RULES } from '../documents/doc-types.ts';
import { DEALER_TYPES } from './dealer-types.ts';

/** A logo data URI may be at most 400 KB. */
export const LOGO_MAX_CHARS = 400 * 1024;

const Template = enumOf(BRANDING_TEMPLATES);

export const BrandingInput = Type.Object(
  {
    logo: Type.Optional(
      Nullable(Type.String({ maxLength: LOGO_MAX_CHARS, description: 'PNG or JPEG as a base64 data URI, at most 400 KB; null removes it. Write-only.' })),
    ),
    accentColor: Type.Optional(Nullable(Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: '#RRGGBB' }))),
    tagline: Type.Optional(Nullable(Type.String({ maxLength: 120 }))),
    website: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    footerText: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    template: Type.Optional(Template),
  },
  { additionalProperties: false, description: 'Fields given replace the stored ones; null clears one.' },
);

export const LogoRef = Type.Object({ fileId: Type.String(), sha256: Type.String(), mime: Type.String() });

export const Branding = Type.Object({
  logoRef: Nullable(LogoRef),
  accentColor: Nullable(Type.String()),
  tagline: Nullable(Type.String()),
  website: Nullable(Type.String()),
  footerText: Nullable(Type.String()),
  template: Template,
});

/** An ngo's section 46 approval (decisions.md: a 405 is refused on a day it is not in force). */
const Section46Approval = Type.Object(
  {
    number: Type.String({ minLength: 1, maxLength: 20, pattern: '^[0-9A-Za-z/-]+$', description: 'The approval number, as the Tax Authority wrote it.' }),
    validFrom: IsoDate,
    validTo: IsoDate,
  },
  { additionalProperties: false },
);
const SECTION46_DESCRIPTION =
  "An ngo's approval under section 46 of the Income Tax Ordinance: its number and the days it is valid (both included). A 405 donation receipt is issued only on a day inside them (else 422 `donation_approval_missing`) and prints it. Only an ngo holds one; null clears it.";

const StartNumber = Type.Optional(Type.Integer({ minimum: 1, maximum: 999_999_999 }));
/** One key per numbering series of the document types (doc-types.ts `series`). */
const SERIES = [...new Set(DOC_TYPE_RULES.map((r) => r.series))].sort((a, b) => a - b);
const Numbering = Type.Object(Object.fromEntries(SERIES.map((series) => [String(series), StartNumber])), {
  additionalProperties: false,
  description: 'First number per doc type, e.g. {"305": 1001}; settable only before that type\'s first issue.',
});

const writable = {
  name: Type.String({
    minLength: 1,
    maxLength: maxLength('businessName'),
    description: `At most ${maxLength('businessName')} characters as written to the export (${carrier('businessName')}).`,
  }),
  taxId: Type.String({ minLength: 1, maxLength: 20, description: 'Checksum-validated; locked once the business has issued a document.' }),
  dealerType: enumOf(DEALER_TYPES, {
    description: 'patur (exempt dealer), murshe (licensed dealer), company or ngo. Locked once the business has issued a document.',
  }),
  address: Nullable(
    Type.String({
      maxLength: maxLength('businessStreet'),
      description: `At most ${maxLength('businessStreet')} characters as written to the export (${carrier('businessStreet')}).`,
    }),
  ),
  // Printed on every document beside the customer's phone: held to the same capacity as a party's
  // phone (OPENFRMT C100/1214), so one phone rule holds wherever a phone ends up on a document.
  phone: Nullable(
    Type.String({
      maxLength: maxLength('partyPhone'),
      description: `At most ${maxLength('partyPhone')} characters, like a customer's phone on a document (${carrier('partyPhone')}).`,
    }),
  ),
  email: Nullable(Type.String({ maxLength: 200, format: 'email' })),
  defaultVatRateBp: Nullable(
    Type.Integer({
      minimum: 0,
      maximum: maxScaled('vatRate'),
      description: `Basis points; null follows the statutory rate. At most ${maxScaled('vatRate')} (${carrier('vatRate')}).`,
    }),
  ),
  requireAllocation: Type.Boolean(),
  bookkeeping: enumOf(BOOKKEEPING_KINDS, {
    description: 'Single- or double-entry books; default double for company and ngo, single otherwise. Double exports the ledger (B100/B110) with OPENFRMT.',
  }),
  branding: BrandingInput,
  numbering: Numbering,
  section46Approval: Type.Union([Section46Approval, Type.Null()], { description: SECTION46_DESCRIPTION }),
  vatReportingPeriod: enumOf(VAT_REPORTING_PERIODS, {
    description:
      "The VAT reporting period the VAT office set: `monthly` (default) or `bimonthly`. `period=YYYY-MM` of the VAT report and the PCN874 file means the business's period holding that month.",
  }),
};

export const BusinessCreate = Type.Object(
  {
    name: writable.name,
    taxId: writable.taxId,
    dealerType: writable.dealerType,
    address: Type.Optional(writable.address),
    phone: Type.Optional(writable.phone),
    email: Type.Optional(writable.email),
    defaultVatRateBp: Type.Optional(writable.defaultVatRateBp),
    requireAllocation: Type.Optional(writable.requireAllocation),
    bookkeeping: Type.Optional(writable.bookkeeping),
    branding: Type.Optional(writable.branding),
    numbering: Type.Optional(writable.numbering),
    vatReportingPeriod: Type.Optional(writable.vatReportingPeriod),
    section46Approval: Type.Optional(writable.section46Approval),
    metadata: MetadataCreate,
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'עסק לדוגמה בע"מ',
        taxId: '516179157',
        dealerType: 'company',
        address: 'הרצל 1, תל אביב',
        phone: '03-1234567',
        email: 'office@example.com',
        numbering: { '305': 1001 },
      },
    ],
  },
);
export type BusinessCreateBody = Static<typeof BusinessCreate>;

export const BusinessPatch = Type.Object(
  {
    name: Type.Optional(writable.name),
    taxId: Type.Optional(writable.taxId),
    dealerType: Type.Optional(writable.dealerType),
    address: Type.Optional(writable.address),
    phone: Type.Optional(writable.phone),
    email: Type.Optional(writable.email),
    defaultVatRateBp: Type.Optional(writable.defaultVatRateBp),
    requireAllocation: Type.Optional(writable.requireAllocation),
    bookkeeping: Type.Optional(writable.bookkeeping),
    branding: Type.Optional(writable.branding),
    numbering: Type.Optional(writable.numbering),
    vatReportingPeriod: Type.Optional(writable.vatReportingPeriod),
    section46Approval: Type.Optional(writable.section46Approval),
    metadata: MetadataPatch,
  },
  { additionalProperties: false },
);
export type BusinessPatchBody = Static<typeof BusinessPatch>;

export const Business = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    taxId: Type.String(),
    dealerType: enumOf(DEALER_TYPES),
    address: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    email: Nullable(Type.String()),
    defaultVatRateBp: Nullable(Type.Integer()),
    requireAllocation: Type.Boolean(),
    bookkeeping: enumOf(BOOKKEEPING_KINDS),
    vatReportingPeriod: enumOf(VAT_REPORTING_PERIODS),
    branding: Branding,
    section46Approval: Type.Union([Section46Approval, Type.Null()], { description: SECTION46_DESCRIPTION }),
    approvalStatus: enumOf(APPROVAL_STATUSES, {
      description: "The account's approval: live documents are issued once it is `approved`.",
    }),
    planKey: Nullable(Type.String()),
    maxDocsPerMonth: Nullable(Type.Integer()),
    maxExpensesPerMonth: Nullable(Type.Integer()),
    numbering: Type.Record(Type.String(), Type.Integer(), { description: 'Configured first numbers per doc type.' }),
    metadata: MetadataSchema,
    deactivatedAt: Nullable(IsoDateTime),
    createdAt: IsoDateTime,
  },
  { title: 'Business' },
);
export type BusinessView = Static<typeof Business>;
