/** What a payment to a supplier takes: the body's schema, and the input type the service reads from it. */
import { Type, type Static } from 'typebox';
import { IsoDate, Nullable } from '../platform/http/schemas.ts';
import { PAYMENT_METHOD_NAMES, type PaymentMethodCode } from '../documents/index.ts';

/** Payment methods by name (decisions.md "Money and tax"); vouchers are taken, not given. */
export const SUPPLIER_PAYMENT_METHODS: Record<string, PaymentMethodCode> = Object.fromEntries(
  Object.entries(PAYMENT_METHOD_NAMES).filter(([, code]) => code !== 5),
);

export const PaymentCreate = Type.Object(
  {
    date: Type.Optional({ ...IsoDate, description: 'When it was paid (default today); not after today, not in a closed month of the books.' }),
    method: Type.Enum(Object.keys(SUPPLIER_PAYMENT_METHODS), {
      type: 'string',
      description: 'How it was paid: cash from the till (account 1200); any other method from the bank (1230).',
    }),
    amount: Type.Integer({ minimum: 1, maximum: 99_999_999_999_999, description: 'Agorot.' }),
    expenseId: Type.Optional(
      Type.String({
        maxLength: 40,
        description: 'A recorded expense to pay (at most what is left of its total); its supplier account is the one it booked to.',
      }),
    ),
    partyId: Type.Optional(
      Type.String({ maxLength: 40, description: 'A saved supplier (kind supplier or both) to pay on account. Give expenseId or partyId.' }),
    ),
    reference: Type.Optional(Nullable(Type.String({ maxLength: 20, description: 'A cheque number or a transfer reference (B100 1357 of its entry).' }))),
    note: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  },
  { additionalProperties: false, examples: [{ expenseId: 'exp_01J…', method: 'transfer', amount: 35_400, reference: 'TR-7731' }] },
);
export type SupplierPaymentInput = Static<typeof PaymentCreate>;
