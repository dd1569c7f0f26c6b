/** The request bodies of the chart and the manual entry: the routes validate them, the service takes their types. */
import { Type, type Static } from 'typebox';
import { enumOf } from '../platform/http/enums.ts';
import { IsoDate } from '../platform/http/schemas.ts';
import { ACCOUNT_KINDS } from './lists.ts';

export const Code = Type.String({ pattern: '^[0-9A-Za-z-]{1,15}$', description: 'Account code (B110 1402): up to 15 letters, digits or hyphens' });
export const Kind = enumOf(ACCOUNT_KINDS);
const Amount = Type.Integer({ minimum: 1, maximum: 99_999_999_999_99, description: 'Agorot, greater than zero' });

export const NewAccountBody = Type.Object(
  {
    code: Code,
    name: Type.String({ minLength: 1, maxLength: 50 }),
    kind: Kind,
    trialBalanceCode: Code,
    trialBalanceName: Type.Optional(Type.String({ minLength: 1, maxLength: 30 })),
  },
  { additionalProperties: false },
);
export type NewAccountInput = Static<typeof NewAccountBody>;

export const ManualEntryBody = Type.Object(
  {
    date: IsoDate,
    description: Type.String({ minLength: 1, maxLength: 50 }),
    lines: Type.Array(Type.Object({ account: Code, debit: Type.Optional(Amount), credit: Type.Optional(Amount) }, { additionalProperties: false }), {
      minItems: 2,
      maxItems: 500,
    }),
  },
  { additionalProperties: false },
);
export type ManualEntryInput = Static<typeof ManualEntryBody>;
