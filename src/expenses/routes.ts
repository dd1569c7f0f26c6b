import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidIdParams, BidParams, errors, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { businessOf } from '../businesses/index.ts';
import { EXPENSE_CATEGORIES } from './categories.ts';
import { Category, CorrectionBody, Expense, ExpenseCreate, ExpensePatch, ListQuery, UploadJson, type ListQueryValue } from './schemas.ts';
import { getExpense, listExpenses } from './rows.ts';
import { correctExpense, createDraft, deleteDraft, patchDraft, recordDraft } from './service.ts';
import { readReceipt, receiptFingerprint, scanReceipt, uploadReceipt } from './intake.ts';
import { discardSpool } from '../platform/file-store/spool.ts';
import { claimIdempotencyKey } from '../platform/http/idempotency.ts';
import { DOCUMENTED_BODY, IdempotencyKeyHeaders } from '../platform/http/openapi.ts';
import { NextCursor } from '../platform/http/cursor.ts';
import { registerSupplierPaymentRoutes } from './payment-routes.ts';

const tags = ['expenses'];
const config = { scope: 'expenses' as const };
const Counts = Type.Object({ total: Type.Integer(), byStatus: Type.Object({ draft: Type.Integer(), recorded: Type.Integer() }) });

/** A POST with no body (or an empty one) means "no options". */
async function emptyBodyIsEmptyObject(req: FastifyRequest): Promise<void> {
  if (req.body === undefined || req.body === null) req.body = {};
}

export function registerExpenseRoutes(api: FastifyInstance, s: Services): void {
  registerExpenseReadRoutes(api);
  registerExpenseDraftRoutes(api, s);
  registerExpenseRecordRoutes(api, s);
  registerReceiptIntakeRoutes(api, s);
  registerSupplierPaymentRoutes(api, s);
}

/** Categories, the expense list, one expense. */
function registerExpenseReadRoutes(api: FastifyInstance): void {
  api.get(
    '/expense-categories',
    {
      config,
      schema: {
        tags,
        operationId: 'listExpenseCategories',
        summary: 'The published expense categories and the share of input VAT deductible on each',
        response: { 200: Ok({ categories: Type.Array(Category) }), ...errors(401, 403, 429) },
      },
    },
    async () => ({ ok: true as const, categories: EXPENSE_CATEGORIES }),
  );

  api.get(
    '/businesses/:bid/expenses',
    {
      config,
      schema: {
        tags,
        operationId: 'listExpenses',
        summary:
          'List expenses, newest first (filters, `q` on supplier name or document number, `counts=1`); page with `cursor` (the `nextCursor` of the previous page)',
        params: BidParams,
        querystring: ListQuery,
        response: {
          200: Ok({ expenses: Type.Array(Expense), nextCursor: NextCursor, counts: Type.Optional(Counts) }, 'ExpensePage'),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (req) => ({ ok: true as const, ...(await listExpenses(ctxOf(req).database.db, businessOf(req).id, req.query as ListQueryValue)) }),
  );

  api.get(
    '/businesses/:bid/expenses/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'getExpense',
        summary: 'Read an expense (with the raw OCR extraction when it came from a scan)',
        params: BidIdParams,
        response: { 200: Ok({ expense: Expense }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const { id } = req.params as { id: string };
      return { ok: true as const, expense: await getExpense(ctxOf(req).database.db, businessOf(req).id, id) };
    },
  );
}

/** Expense drafts: create, change, delete. */
function registerExpenseDraftRoutes(api: FastifyInstance, s: Services): void {
  registerExpenseCreateRoute(api, s);
  registerExpenseDraftEditRoutes(api, s);
}

function registerExpenseCreateRoute(api: FastifyInstance, s: Services): void {
  api.post(
    '/businesses/:bid/expenses',
    {
      config,
      schema: {
        tags,
        operationId: 'createExpense',
        summary: 'Create a draft expense (Idempotency-Key header or body externalRef: a retry answers the same row with deduped: true)',
        params: BidParams,
        headers: IdempotencyKeyHeaders,
        body: ExpenseCreate,
        response: { 201: Ok({ expense: Expense, deduped: Type.Boolean() }), ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const key = req.headers['idempotency-key'];
      const result = await createDraft(s, ctx.database, {
        actor: ctx.actor,
        business: businessOf(req),
        body: req.body ?? {},
        headerKey: typeof key === 'string' ? key : undefined,
      });
      if (result.deduped) reply.header('Idempotent-Replayed', 'true');
      return reply.status(201).send({ ok: true, ...result });
    },
  );
}

/** Change or discard a draft. */
function registerExpenseDraftEditRoutes(api: FastifyInstance, s: Services): void {
  api.patch(
    '/businesses/:bid/expenses/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'updateExpense',
        summary: 'Edit a draft (a recorded expense answers 409 not_draft)',
        params: BidIdParams,
        body: ExpensePatch,
        response: { 200: Ok({ expense: Expense }), ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const { id } = req.params as { id: string };
      return { ok: true as const, expense: await patchDraft(s, ctx.database, { actor: ctx.actor, business: businessOf(req), id, body: req.body ?? {} }) };
    },
  );

  api.delete(
    '/businesses/:bid/expenses/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'deleteExpense',
        summary: 'Discard a draft (a recorded expense answers 404)',
        params: BidIdParams,
        response: { 200: Ok({}), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const { id } = req.params as { id: string };
      await deleteDraft(s, ctx.database, { actor: ctx.actor, business: businessOf(req), id });
      return { ok: true as const };
    },
  );
}

/** Record a draft; correct a recorded expense. */
function registerExpenseRecordRoutes(api: FastifyInstance, s: Services): void {
  api.post(
    '/businesses/:bid/expenses/:id/record',
    {
      config,
      schema: {
        tags,
        operationId: 'recordExpense',
        summary: 'Record a draft: it becomes immutable; deductible VAT is computed; event expense.recorded',
        description:
          'A tax invoice above the allocation threshold of its date without `allocationNumber` deducts no input VAT and is recorded with the warning ' +
          '`input_vat_needs_allocation`; a business with `requireAllocation` is refused 422 `allocation_required` instead and the draft stays a draft.',
        params: BidIdParams,
        response: { 201: Ok({ expense: Expense, deduped: Type.Boolean() }), ...errors(...AUTH_ERRORS, 422) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const { id } = req.params as { id: string };
      return reply.status(201).send({ ok: true, ...(await recordDraft(s, ctx.database, { actor: ctx.actor, business: businessOf(req), id })) });
    },
  );

  api.post(
    '/businesses/:bid/expenses/:id/correction',
    {
      config,
      preValidation: emptyBodyIsEmptyObject,
      schema: {
        tags,
        operationId: 'correctExpense',
        summary: 'Storno: write a reversing row for a recorded expense; with redraft also open a new draft cloned from it',
        params: BidIdParams,
        body: CorrectionBody,
        response: {
          201: Ok({ expense: Expense, draft: Type.Optional(Expense), draftError: Type.Optional(Type.Object({ error: Type.String(), reason: Type.String() })) }),
          ...errors(...AUTH_ERRORS, 409),
        },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const { id } = req.params as { id: string };
      const redraft = Boolean((req.body as { redraft?: boolean } | undefined)?.redraft);
      return reply.status(201).send({ ok: true, ...(await correctExpense(s, ctx.database, { actor: ctx.actor, business: businessOf(req), id, redraft })) });
    },
  );
}

/** The schema of a receipt intake route (multipart or JSON data URI, documented by hand: the body is parsed by the route). */
function receiptIntakeSchema(maxBytes: number, operationId: string, summary: string) {
  return {
    tags,
    operationId,
    summary,
    description:
      `multipart/form-data with one part named \`file\`, or JSON \`{"file": "data:<mime>;base64,...", "name"?: string}\`. ` +
      `JPEG, PNG, WebP or PDF, at most ${maxBytes} bytes (UPLOAD_MAX_BYTES; 413 \`too_large\` beyond). The real type is read ` +
      'from the bytes and must match the declared one. The same file again answers the expense that holds it (`deduped: true`).',
    params: BidParams,
    headers: IdempotencyKeyHeaders,
    [DOCUMENTED_BODY]: {
      content: {
        'multipart/form-data': { schema: Type.Object({ file: Type.String({ format: 'binary', description: 'The receipt.' }) }) },
        'application/json': { schema: UploadJson },
      },
    },
    response: { 201: Ok({ expense: Expense, deduped: Type.Boolean() }), ...errors(...AUTH_ERRORS, 413) },
  };
}

/** Receipt uploads (multipart, in their own scope). */
function registerReceiptIntakeRoutes(api: FastifyInstance, s: Services): void {
  // Upload and scan accept multipart: the parser is registered in this scope only.
  const maxBytes = s.config.expenses.uploadMaxBytes;
  // A JSON data URI of the largest file: base64 (4/3) plus the envelope.
  const bodyLimit = Math.ceil(maxBytes / 3) * 4 + 64 * 1024;
  const intakeSchema = (operationId: string, summary: string) => receiptIntakeSchema(maxBytes, operationId, summary);
  api.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: maxBytes, files: 1 } });
    scope.post(
      '/businesses/:bid/expenses/upload',
      { config, bodyLimit, schema: intakeSchema('uploadExpenseReceipt', 'Upload a receipt: opens a draft holding the file') },
      async (req, reply) => {
        const ctx = ctxOf(req);
        const receipt = await readReceipt(req, maxBytes, s.fileStores[ctx.mode].current.spoolDir);
        try {
          if (await claimIdempotencyKey(s, req, reply, receiptFingerprint(receipt))) return reply;
          return reply.status(201).send({ ok: true, ...(await uploadReceipt(s, ctx.database, { actor: ctx.actor, business: businessOf(req), receipt })) });
        } finally {
          // Gone already once it went into the store; removed here when it did not.
          await discardSpool(receipt.spool);
        }
      },
    );
    scope.post(
      '/businesses/:bid/expenses/scan',
      {
        config: { scope: 'ocr' },
        bodyLimit,
        schema: {
          ...intakeSchema('scanExpenseReceipt', 'Scan a receipt: upload + OCR; the draft is prefilled and the raw extraction kept (scope ocr)'),
          response: { 201: Ok({ expense: Expense, deduped: Type.Boolean() }), ...errors(...AUTH_ERRORS, 413, 502, 503) },
        },
      },
      async (req, reply) => {
        const ctx = ctxOf(req);
        const receipt = await readReceipt(req, maxBytes, s.fileStores[ctx.mode].current.spoolDir);
        try {
          if (await claimIdempotencyKey(s, req, reply, receiptFingerprint(receipt))) return reply;
          const actor = { accountId: ctx.key.accountId, keyId: ctx.key.id };
          return reply.status(201).send({ ok: true, ...(await scanReceipt(s, ctx.database, { actor, business: businessOf(req), receipt })) });
        } finally {
          await discardSpool(receipt.spool);
        }
      },
    );
  });
}
