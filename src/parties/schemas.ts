import { Type, type Static } from 'typebox';
import { IsoDateTime, Nullable } from '../platform/http/schemas.ts';
import { carrier, maxLength } from '../openfrmt/index.ts';
import { MetadataCreate, MetadataPatch, MetadataQuery, MetadataSchema } from '../platform/metadata.ts';
import { CursorQuery } from '../platform/http/cursor.ts';
import { enumOf } from '../platform/http/enums.ts';
import { PARTY_KINDS } from './lists.ts';

export type { PartyKind } from './lists.ts';
export const Kind = enumOf(PARTY_KINDS);

/** An address sent as an object is stored as one printed line: "street, city zip, country". */
export const AddressObject = Type.Object(
  {
    street: Type.Optional(Type.String({ maxLength: 200 })),
    city: Type.Optional(Type.String({ maxLength: 100 })),
    zip: Type.Optional(Type.String({ maxLength: 20 })),
    country: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: maxLength('partyName'), description: `Printed and exported as the customer's name (${carrier('partyName')}).` }),
  taxId: Nullable(Type.String({ maxLength: 20, description: 'Israeli tax id, checksum-validated when given.' })),
  phone: Nullable(
    Type.String({
      maxLength: maxLength('partyPhone'),
      description: `Printed and exported as the customer's phone (${carrier('partyPhone')}, ${maxLength('partyPhone')} characters as written to the file).`,
    }),
  ),
  email: Nullable(Type.String({ maxLength: 200, format: 'email' })),
  address: Nullable(Type.String({ maxLength: maxLength('partyAddress'), description: `One printed line (${carrier('partyAddress')}).` })),
  digitalDocConsentAt: Nullable(IsoDateTime),
};

export const PartyCreate = Type.Object(
  {
    name: fields.name,
    kind: Type.Optional(Kind),
    taxId: Type.Optional(fields.taxId),
    phone: Type.Optional(fields.phone),
    email: Type.Optional(fields.email),
    address: Type.Optional(fields.address),
    digitalDocConsentAt: Type.Optional(fields.digitalDocConsentAt),
    metadata: MetadataCreate,
  },
  {
    additionalProperties: false,
    examples: [{ name: 'דנה כהן', kind: 'customer', taxId: '123456782', phone: '050-1234567', email: 'dana@example.com', address: 'הרצל 1, תל אביב' }],
  },
);
export type PartyCreateBody = Static<typeof PartyCreate>;

/**
 * find-or-create takes a longer phone as a lookup key (its last nine digits match a saved party);
 * only a party it creates must have a phone that fits C100/1214 (checked in the service).
 */
export const LOOKUP_PHONE_MAX = 40;

export const PartyFindOrCreate = Type.Object(
  {
    name: fields.name,
    kind: Type.Optional(Kind),
    taxId: Type.Optional(fields.taxId),
    phone: Type.Optional(
      Nullable(
        Type.String({
          maxLength: LOOKUP_PHONE_MAX,
          description: `Matched by its last nine digits; a party created with it must fit ${carrier('partyPhone')} (${maxLength('partyPhone')} characters).`,
        }),
      ),
    ),
    email: Type.Optional(fields.email),
    address: Type.Optional(Type.Union([Type.String({ maxLength: maxLength('partyAddress') }), AddressObject, Type.Null()])),
    metadata: MetadataCreate, // stored only on a party this call creates; a found party keeps its own
  },
  { additionalProperties: false },
);
export type PartyFindOrCreateBody = Static<typeof PartyFindOrCreate>;

export const PartyPatch = Type.Object(
  {
    name: Type.Optional(fields.name),
    taxId: Type.Optional(fields.taxId),
    phone: Type.Optional(fields.phone),
    email: Type.Optional(fields.email),
    address: Type.Optional(fields.address),
    digitalDocConsentAt: Type.Optional(fields.digitalDocConsentAt),
    metadata: MetadataPatch,
  },
  { additionalProperties: false },
);
export type PartyPatchBody = Static<typeof PartyPatch>;

export const Party = Type.Object(
  {
    id: Type.String(),
    key: Type.String({ description: 'C00001… for customers (and both), S00001… for suppliers.' }),
    kind: Type.String(),
    name: Type.String(),
    taxId: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    email: Nullable(Type.String()),
    address: Nullable(Type.String()),
    digitalDocConsentAt: Nullable(IsoDateTime),
    metadata: MetadataSchema,
    createdAt: IsoDateTime,
  },
  { title: 'Party' },
);
export type PartyView = Static<typeof Party>;

/** The list's query (GET /businesses/{bid}/parties); the console checks its page's query with it too. */
export const PartiesQuery = Type.Object(
  {
    kind: Type.Optional(Kind),
    metadata: MetadataQuery,
    take: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
    cursor: Type.Optional(CursorQuery),
  },
  { additionalProperties: false },
);
