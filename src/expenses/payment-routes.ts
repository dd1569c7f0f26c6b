/** Payments to suppliers (issue 29): record one, list them, read one. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidIdParams, BidParams, errors, IsoDate, IsoDateTime, Nullable, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { IdempotencyKeyHeaders } from '../platform/http/openapi.ts';
import { businessOf } from '../businesses/index.ts';
import { getSupplierPayment, listSupplierPayments, paySupplier, SUPPLIER_PAYMENT_METHODS, type SupplierPaymentInput } from './payments.ts';

const tags = ['expenses'];
const config = { scope: 'expenses' as const };

const PaymentCreate = Type.Object(
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

const SupplierPayment = Type.Object(
  {
    id: Type.String(),
    date: IsoDate,
    method: Type.Integer({ description: 'The payment method code (1 cash, 2 cheque, 3 card, 4 transfer, 8 standing order, 9 other, 91–93 apps).' }),
    amount: Type.Integer(),
    expenseId: Nullable(Type.String()),
    partyId: Nullable(Type.String()),
    supplierAccount: Type.String({ description: "The ledger account debited: the supplier's own (2100-…) or the occasional suppliers' 2190." }),
    paidFromAccount: Type.String({ description: 'The ledger account credited: 1200 cash or 1230 the bank.' }),
    reference: Nullable(Type.String()),
    note: Nullable(Type.String()),
    journalEntryId: Type.String(),
    createdAt: IsoDateTime,
  },
  { $id: 'SupplierPayment' },
);

const ListQuery = Type.Object(
  {
    expenseId: Type.Optional(Type.String({ maxLength: 40 })),
    partyId: Type.Optional(Type.String({ maxLength: 40 })),
    take: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
  },
  { additionalProperties: false },
);

export function registerSupplierPaymentRoutes(api: FastifyInstance, s: Services): void {
  api.post(
    '/businesses/:bid/supplier-payments',
    {
      config,
      schema: {
        tags,
        operationId: 'paySupplier',
        headers: IdempotencyKeyHeaders,
        summary: 'Record a payment to a supplier, against a recorded expense or a saved supplier: Dr the supplier / Cr cash or the bank',
        description:
          'Writes the payment and its journal entry (source `payment`) together, audited. Beyond what is left of the expense: 409 `conflict`; ' +
          'a date in a closed month: 422 `period_closed`. Never changed afterwards.',
        params: BidParams,
        body: PaymentCreate,
        response: { 201: Ok({ payment: SupplierPayment }), ...errors(...AUTH_ERRORS, 409, 422) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const payment = await paySupplier(s, ctx.database, { actor: ctx.actor, business: businessOf(req), input: req.body as SupplierPaymentInput });
      return reply.status(201).send({ ok: true, payment });
    },
  );

  api.get(
    '/businesses/:bid/supplier-payments',
    {
      config,
      schema: {
        tags,
        operationId: 'listSupplierPayments',
        summary: 'Payments to suppliers, newest first; of one expense or one party',
        params: BidParams,
        querystring: ListQuery,
        response: { 200: Ok({ payments: Type.Array(SupplierPayment) }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => ({
      ok: true as const,
      payments: await listSupplierPayments(ctxOf(req).database, businessOf(req).id, req.query as Static<typeof ListQuery>),
    }),
  );

  api.get(
    '/businesses/:bid/supplier-payments/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'getSupplierPayment',
        summary: 'One payment to a supplier',
        params: BidIdParams,
        response: { 200: Ok({ payment: SupplierPayment }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => ({ ok: true as const, payment: await getSupplierPayment(ctxOf(req).database, businessOf(req).id, (req.params as { id: string }).id) }),
  );
}
