import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidIdParams, BidParams, errors, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { IdempotencyKeyHeaders } from '../platform/http/openapi.ts';
import { NextCursor } from '../platform/http/cursor.ts';
import { businessOf } from '../businesses/index.ts';
import { documentView, getDocumentRow } from './snapshot.ts';
import {
  CreditNoteBody,
  type CreditNoteInput,
  DocType,
  ConvertBody,
  DraftCreate,
  DraftPatch,
  IssueBody,
  ListQuery,
  type ConvertInput,
  type DraftCreateBody,
  type DraftPatchBody,
  type IssueBodyInput,
  type ListQueryInput,
} from './schemas.ts';
import { Document } from './document-schema.ts';
import { createDraft, deleteDraft, patchDraft } from './drafts.ts';
import { issueDocument } from './issue.ts';
import { issueCreditNote } from './credit-note.ts';
import { convertDocument } from './convert.ts';
import { convertedToOf } from './conversion-store.ts';
import { continuityReport, listDocuments, MAX_LISTED } from './list.ts';

const tags = ['documents'];
/** An empty body on an endpoint whose body is optional means "no options". */
const emptyBodyIsEmptyObject = async (req: FastifyRequest) => {
  if (req.body === undefined || req.body === null) req.body = {};
};
const config = { scope: 'documents' as const };

const Counts = Type.Object({ total: Type.Integer(), byStatus: Type.Object({ draft: Type.Integer(), issued: Type.Integer() }) });
const ContinuityEntry = Type.Object({
  docType: DocType,
  first: Type.Union([Type.Integer(), Type.Null()], { description: 'Smallest stored issued number; null when none.' }),
  last: Type.Union([Type.Integer(), Type.Null()], { description: 'Largest stored issued number; null when none.' }),
  count: Type.Integer({ description: 'Stored issued documents of the type.' }),
  expectedFirst: Type.Integer({ description: 'The first number of the series: 1, or the start number the business chose.' }),
  counter: Type.Union([Type.Integer(), Type.Null()], { description: 'The last number the series handed out; null before its first issue.' }),
  gaps: Type.Array(Type.Integer(), {
    description: `Numbers from expectedFirst through counter with no stored document (a missing first number, holes, numbers after the last stored one), ascending, at most ${MAX_LISTED}.`,
  }),
  gapCount: Type.Integer({ description: 'How many numbers are missing in all.' }),
  duplicates: Type.Array(Type.Integer(), { description: 'Numbers stored more than once.' }),
  outOfSeries: Type.Array(Type.Integer(), { description: 'Stored numbers the series never handed out: below expectedFirst or above counter.' }),
});

const DocumentRef = Type.Ref('Document');

export function registerDocumentRoutes(api: FastifyInstance, s: Services): void {
  // The Document schema is shared: other areas answer documents with Type.Ref('Document').
  api.addSchema({ ...Document, $id: 'Document' });
  registerDraftListRoutes(api, s);
  registerDraftRoutes(api, s);
  registerIssueRoutes(api, s);
  registerConvertRoute(api, s);
  registerContinuityRoute(api);
}

/** Drafts and documents: create a draft, list. */
function registerDraftListRoutes(api: FastifyInstance, s: Services): void {
  api.post(
    '/businesses/:bid/documents',
    {
      config,
      schema: {
        tags,
        operationId: 'createDocument',
        headers: IdempotencyKeyHeaders,
        summary: 'Create a draft (idempotent with Idempotency-Key or externalRef); consumes no number',
        description:
          'Header `Idempotency-Key` and body `externalRef` are the same key (both given and different: 400). ' +
          'The same key with the same body answers the same draft with `deduped: true`; with a different body, 409 `conflict`.',
        params: BidParams,
        body: DraftCreate,
        response: { 201: Ok({ document: DocumentRef, deduped: Type.Optional(Type.Boolean()) }), ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req, reply) => {
      const header = req.headers['idempotency-key'];
      const result = await createDraft(s, ctxOf(req), {
        business: businessOf(req),
        body: req.body as DraftCreateBody,
        headerKey: typeof header === 'string' ? header : undefined,
      });
      // The contract's header of a repeat, as on every idempotent create (platform/http/idempotency.ts).
      if (result.deduped) reply.header('Idempotent-Replayed', 'true');
      return reply.status(201).send({ ok: true, document: result.document, ...(result.deduped ? { deduped: true } : {}) });
    },
  );

  api.get(
    '/businesses/:bid/documents',
    {
      config,
      schema: {
        tags,
        operationId: 'listDocuments',
        summary: 'List documents, newest first; page with `cursor` (the `nextCursor` of the previous page)',
        params: BidParams,
        querystring: ListQuery,
        response: {
          200: Ok({ documents: Type.Array(DocumentRef), nextCursor: NextCursor, counts: Type.Optional(Counts) }, 'DocumentPage'),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (req) => {
      const result = await listDocuments(ctxOf(req).database.db, businessOf(req).id, req.query as ListQueryInput);
      return { ok: true as const, ...result };
    },
  );
}

/** One document: read; a draft: change, delete. */
function registerDraftRoutes(api: FastifyInstance, s: Services): void {
  api.get(
    '/businesses/:bid/documents/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'getDocument',
        summary: 'Read a document',
        params: BidIdParams,
        response: { 200: Ok({ document: DocumentRef }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const { id } = req.params as { id: string };
      const db = ctxOf(req).database.db;
      const row = await getDocumentRow(db, businessOf(req).id, id);
      // convertedTo is an issued document's (a draft is never a source).
      const view = documentView(row);
      return { ok: true as const, document: row.status === 'issued' ? { ...view, convertedTo: await convertedToOf(db, row.businessId, id) } : view };
    },
  );

  api.patch(
    '/businesses/:bid/documents/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'updateDocument',
        summary: 'Update a draft (issued: 409 not_draft)',
        params: BidIdParams,
        body: DraftPatch,
        response: { 200: Ok({ document: DocumentRef }), ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req) => {
      const { id } = req.params as { id: string };
      const document = await patchDraft(s, ctxOf(req), { business: businessOf(req), id, body: req.body as DraftPatchBody });
      return { ok: true as const, document };
    },
  );

  api.delete(
    '/businesses/:bid/documents/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'deleteDocument',
        summary: 'Delete a draft (issued: 409 not_draft)',
        params: BidIdParams,
        response: { 200: Ok({}), ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req) => {
      const { id } = req.params as { id: string };
      await deleteDraft(s, ctxOf(req), businessOf(req), id);
      return { ok: true as const };
    },
  );
}

/** Issue a draft; credit an issued document. */
function registerIssueRoutes(api: FastifyInstance, s: Services): void {
  api.post(
    '/businesses/:bid/documents/:id/issue',
    {
      config,
      preValidation: emptyBodyIsEmptyObject,
      schema: {
        tags,
        operationId: 'issueDocument',
        summary: 'Issue a draft: next gapless number, frozen snapshot; issuing again answers deduped',
        params: BidIdParams,
        body: IssueBody,
        response: { 201: Ok({ document: DocumentRef, deduped: Type.Boolean() }), ...errors(...AUTH_ERRORS, 409, 422) },
      },
    },
    async (req, reply) => {
      const { id } = req.params as { id: string };
      const ctx = ctxOf(req);
      const result = await issueDocument(s, ctx, { business: businessOf(req), id, body: req.body as IssueBodyInput });
      // Nothing is converted from a document issued just now; an issue answered again may have been since.
      const convertedTo = result.deduped ? await convertedToOf(ctx.database.db, result.document.businessId, id) : [];
      return reply.status(201).send({ ok: true, ...result, document: { ...result.document, convertedTo } });
    },
  );

  api.post(
    '/businesses/:bid/documents/:id/credit-note',
    {
      config,
      preValidation: emptyBodyIsEmptyObject,
      schema: {
        tags,
        operationId: 'createCreditNote',
        headers: IdempotencyKeyHeaders,
        summary: 'Credit an issued document, whole or in part: a linked 330 (305/320) or a negative receipt (400)',
        params: BidIdParams,
        body: CreditNoteBody,
        response: { 201: Ok({ document: DocumentRef }), ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req, reply) => {
      const { id } = req.params as { id: string };
      const body = (req.body as CreditNoteInput) ?? {};
      const document = await issueCreditNote(s, ctxOf(req), {
        business: businessOf(req),
        id,
        body: {
          reason: body.reason ?? null,
          ...(body.lines ? { lines: body.lines } : {}),
          ...(body.amount !== undefined ? { amount: body.amount } : {}),
        },
      });
      // A credit note just issued has nothing converted from it (it converts into nothing).
      return reply.status(201).send({ ok: true, document: { ...document, convertedTo: [] } });
    },
  );
}

/** Convert an issued document into a draft of the next type (issue 30). */
function registerConvertRoute(api: FastifyInstance, s: Services): void {
  api.post(
    '/businesses/:bid/documents/:id/convert',
    {
      config,
      schema: {
        tags,
        operationId: 'convertDocument',
        headers: IdempotencyKeyHeaders,
        summary: 'Convert an issued document into a draft of another type: a quote into an order, an order into delivery notes, a 300 into a 320',
        description:
          "Answers a draft with the source's party and lines: what is left of every line at the target's stage, or the chosen `lines` (a partial delivery or invoice); with `draftId`, the lines are added to that converted draft (one invoice for two delivery notes). Issue the draft as any other; its lines name their source (OPENFRMT D110 1256/1257) and the source's `convertedTo` lists it. A source's quantities are delivered, returned and invoiced each at most once in all: beyond them 409 `conflict`, here and at issue. A conversion the types do not make (a receipt into a quote, an invoice into an order) is 409 `conflict`; a type the dealer may not issue is 400 `doc_type_not_allowed`.",
        params: BidIdParams,
        body: ConvertBody,
        response: { 201: Ok({ document: DocumentRef }), ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req, reply) => {
      const { id } = req.params as { id: string };
      const body = req.body as ConvertInput;
      const document = await convertDocument(s, ctxOf(req), {
        business: businessOf(req),
        id,
        req: {
          docType: body.docType,
          ...(body.lines ? { lines: body.lines } : {}),
          ...(body.draftId !== undefined ? { draftId: body.draftId } : {}),
        },
      });
      return reply.status(201).send({ ok: true, document });
    },
  );
}

function registerContinuityRoute(api: FastifyInstance): void {
  api.get(
    '/businesses/:bid/reports/continuity',
    {
      config: { scope: 'export' as const },
      schema: {
        tags: ['reports'],
        operationId: 'getContinuityReport',
        summary: 'Numbering continuity per document type: the stored issued documents against the series start number and counter',
        params: BidParams,
        querystring: Type.Object({ docType: Type.Optional(DocType) }, { additionalProperties: false }),
        response: {
          200: Ok({
            report: Type.Object({
              byDocType: Type.Array(ContinuityEntry),
              ok: Type.Boolean({ description: 'True when no series has a gap, a duplicate or a number out of series.' }),
            }),
          }),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (req) => {
      const { docType } = req.query as { docType?: number };
      return { ok: true as const, report: await continuityReport(ctxOf(req).database.db, businessOf(req).id, docType) };
    },
  );
}
