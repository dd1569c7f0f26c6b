import type { Api } from '../platform/http/api.ts';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidIdParams, errors, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { binaryResponse, emptyBodyIsEmptyObject } from '../platform/http/openapi.ts';
import { AppError, notFound } from '../platform/errors.ts';
import { storedFile } from '../platform/files.ts';
import { fileReading, openFile } from '../platform/file-read.ts';
import type { Readable } from 'node:stream';
import { businessOf } from '../businesses/index.ts';
import { findDocumentRow } from '../documents/index.ts';
import { documentPreviewPdf } from './preview.ts';
import { consentWarnings, handOut, printLog } from './handout.ts';
import { emailDocument } from './send-email.ts';
import { sharedPdf } from './shared-link.ts';
import { EmailBody, PrintBody, PrintLogEntry, Variant, Warning } from './schemas.ts';
import { PDF_VARIANTS } from './lists.ts';

const tags = ['documents'];

const PdfResponse = binaryResponse('The PDF.', ['application/pdf'], {
  // An anyOf of consts, as the contract test reads a header's values.
  'X-Print-Variant': Type.Union(
    PDF_VARIANTS.map((v) => Type.Literal(v)),
    { description: '`origin` (the one original), `copy`, or `draft` (an unsigned watermarked preview).' },
  ),
  'Content-Disposition': Type.String({ description: '`inline; filename="…"`.' }),
});

export function publicPdfPath(slug: string): string {
  return `/api/docs/${slug}/d.pdf`;
}

const config = { scope: 'documents' as const };

export function registerPrintRoutes(api: Api, s: Services): void {
  registerPrintRoute(api, s);
  registerPrintLogRoute(api);
  registerShareRoute(api, s);
  registerEmailRoute(api, s);
}

function registerPrintRoute(api: Api, s: Services): void {
  api.post(
    '/businesses/:bid/documents/:id/print',
    {
      config,
      preValidation: emptyBodyIsEmptyObject,
      schema: {
        tags,
        operationId: 'printDocument',
        summary: 'Print: the signed PDF bytes (origin once, copies after); a draft answers an unsigned watermarked preview',
        description:
          'Answers `application/pdf` with header `X-Print-Variant` (`origin`, `copy` or `draft`). 409 `pdf_pending` (with `Retry-After`) while the signed PDFs are rendered; 409 `conflict` for `kind: origin` once the origin was handed out.',
        params: BidIdParams,
        body: PrintBody,
        response: { 200: PdfResponse, ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const business = businessOf(req);
      const { id } = req.params;
      const { kind = 'auto' } = req.body;
      const doc = await findDocumentRow(ctx.database.db, business.id, id);
      if (!doc) throw notFound('document');
      // A draft's preview: rendered on demand, unsigned, never logged, never counted.
      if (doc.status === 'draft') return sendPdf(reply, await documentPreviewPdf(s, ctx.database, business, id));
      const handout = await handOut(s, ctx, { business, documentId: id, kind, channel: 'print' });
      const file = await storedFile(ctx.database.db, handout.fileId);
      if (!file) throw new Error(`stored PDF ${handout.fileId} is missing`);
      const body = await openFile(fileReading(s, ctx.database), file);
      return sendPdf(reply, { body, size: file.size, variant: handout.variant, name: file.name });
    },
  );
}

function registerPrintLogRoute(api: Api): void {
  api.get(
    '/businesses/:bid/documents/:id/prints',
    {
      config,
      schema: {
        tags,
        operationId: 'listDocumentPrints',
        summary: 'The print log of a document: every origin and copy handed out, by print, share or email',
        params: BidIdParams,
        response: { 200: Ok({ prints: Type.Array(PrintLogEntry), printCount: Type.Integer() }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const { id } = req.params;
      const doc = await findDocumentRow(ctx.database.db, businessOf(req).id, id);
      if (!doc) throw notFound('document');
      return { ok: true as const, prints: await printLog(ctx.database.db, doc.businessId, doc.id), printCount: doc.printCount };
    },
  );
}

function registerShareRoute(api: Api, s: Services): void {
  api.post(
    '/businesses/:bid/documents/:id/share',
    {
      config,
      preValidation: emptyBodyIsEmptyObject,
      schema: {
        tags,
        operationId: 'shareDocument',
        summary: 'Share: the public no-login link to the signed PDF; counts as a print (origin once, copies after)',
        params: BidIdParams,
        body: PrintBody,
        response: {
          200: Ok({ variant: Variant, fileId: Type.String(), slug: Type.String(), path: Type.String(), url: Type.String(), warnings: Type.Array(Warning) }),
          ...errors(...AUTH_ERRORS, 409),
        },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const business = businessOf(req);
      const { id } = req.params;
      const { kind = 'auto' } = req.body;
      const handout = await handOut(s, ctx, { business, documentId: id, kind, channel: 'share' });
      const doc = (await findDocumentRow(ctx.database.db, business.id, id))!;
      const path = publicPdfPath(handout.slug);
      return {
        ok: true as const,
        variant: handout.variant,
        fileId: handout.fileId,
        slug: handout.slug,
        path,
        url: `${s.config.publicBaseUrl}${path}`,
        warnings: await consentWarnings(ctx.database.db, doc),
      };
    },
  );
}

function registerEmailRoute(api: Api, s: Services): void {
  api.post(
    '/businesses/:bid/documents/:id/email',
    {
      config,
      schema: {
        tags,
        operationId: 'emailDocument',
        summary: 'Email the public PDF link, one message per address (1 to 5); counts as a print. Live keys only; 10 per minute per key',
        params: BidIdParams,
        body: EmailBody,
        response: {
          200: Ok({ sent: Type.Array(Type.String()), failed: Type.Array(Type.String()), variant: Variant, url: Type.String(), warnings: Type.Array(Warning) }),
          ...errors(...AUTH_ERRORS, 409, 502, 503),
        },
      },
    },
    async (req) => {
      const { id } = req.params;
      const { to } = req.body;
      return { ok: true as const, ...(await emailDocument(s, ctxOf(req), { business: businessOf(req), documentId: id, to })) };
    },
  );
}

function sendPdf(reply: import('fastify').FastifyReply, pdf: { body: Buffer | Readable; size: number; variant: string; name: string }) {
  return reply
    .header('Content-Type', 'application/pdf')
    .header('Content-Length', String(pdf.size))
    .header('Content-Disposition', `inline; filename="${pdf.name.replace(/[^\w.-]+/g, '_')}"`)
    .header('X-Print-Variant', pdf.variant)
    .header('Cache-Control', 'no-store')
    .send(pdf.body);
}

/** The public capability link: no key; the slug is looked up in both mode databases. */
export function registerPublicPdfRoutes(app: Api, s: Services): void {
  app.get(
    '/api/docs/:slug/d.pdf',
    {
      schema: {
        tags: ['public'],
        operationId: 'getSharedPdf',
        summary: 'A shared document PDF by its public link (no key)',
        params: Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
        security: [],
        response: { 200: PdfResponse },
      },
    },
    async (req, reply) => {
      const { slug } = req.params;
      if (!/^[A-Za-z0-9_-]{22,64}$/.test(slug)) throw notFound('document');
      const pdf = await sharedPdf(s, slug);
      if (!pdf) throw new AppError('not_found', 'document not found');
      reply.header('X-Service-Mode', pdf.mode).header('X-Robots-Tag', 'noindex, nofollow').header('Referrer-Policy', 'no-referrer');
      return sendPdf(reply, pdf);
    },
  );
}
