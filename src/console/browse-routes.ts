import type { Api } from '../platform/http/api.ts';
import { listOwnedBusinesses } from '../businesses/index.ts';
import { DocumentListQuery, documentView, getDocumentRow, listDocuments } from '../documents/index.ts';
import { listDocumentEvents } from '../events/index.ts';
import type { Mode } from '../platform/db/engine.ts';
import type { Services } from '../platform/http/services.ts';
import { documentPreviewPdf, printLog } from '../prints/index.ts';
import { accountMode, dataPage, dropEmptyFields, MODES, ownedBusiness, PAGE_ROWS, queryProblem } from './browse-scope.ts';
import { signedIn } from './context.ts';
import { pathParam } from './request-parts.ts';
import { businessesPage } from './views/businesses-page.ts';
import { documentPage } from './views/document-page.ts';
import { documentsPage } from './views/documents-page.ts';

const htmlType = 'text/html; charset=utf-8';
/** Events shown on a document's page: a document has a handful (issued, PDF ready, allocation, credited). */
const DOCUMENT_EVENTS_SHOWN = 50;

export function registerBrowsePages(c: Api, s: Services): void {
  // The navigation's entry: the businesses of the mode the account has keys in.
  c.get('/data', async (req, reply) => {
    const accountId = signedIn(req, reply);
    if (!accountId) return reply;
    return reply.redirect(`/console/${await accountMode(s, accountId)}/businesses`, 303);
  });
  for (const mode of MODES) {
    registerBusinessesPage(c, s, mode);
    registerDocumentsPage(c, s, mode);
    registerDocumentPage(c, s, mode);
    registerDocumentPdf(c, s, mode);
  }
}

function registerBusinessesPage(c: Api, s: Services, mode: Mode): void {
  c.get(`/${mode}/businesses`, async (req, reply) => {
    const p = await dataPage(s, req, reply);
    if (!p) return reply;
    const businesses = await listOwnedBusinesses(s.databases[mode].db, p.accountId);
    return reply.type(htmlType).send(businessesPage(p.f, { user: p.user, mode, businesses }));
  });
}

/** The API's list (GET /businesses/{bid}/documents): its filters and `q`, checked by its schema, one cursor page at a time. */
function registerDocumentsPage(c: Api, s: Services, mode: Mode): void {
  c.get(
    `/${mode}/businesses/:bid/documents`,
    { schema: { querystring: DocumentListQuery }, attachValidation: true, preValidation: dropEmptyFields },
    async (req, reply) => {
      const p = await dataPage(s, req, reply);
      if (!p) return reply;
      const business = await ownedBusiness(s, mode, p.accountId, pathParam(req, 'bid'));
      const problem = queryProblem(req);
      const q = problem ? {} : req.query;
      // A console page never offsets or counts: the newest PAGE_ROWS after the cursor, whatever the URL says.
      const result = problem
        ? { documents: [], nextCursor: null }
        : await listDocuments(s.databases[mode].db, business.id, { ...q, take: PAGE_ROWS, skip: 0, counts: undefined });
      const { q: text, status, docType, from, to, partyId, externalRefPrefix, cursor } = q;
      const filters = { q: text, status, docType, from, to, partyId, externalRefPrefix };
      return reply
        .status(problem ? 400 : 200)
        .type(htmlType)
        .send(documentsPage(p.f, { user: p.user, mode, business, filters, cursor, ...result, problem }));
    },
  );
}

function registerDocumentPage(c: Api, s: Services, mode: Mode): void {
  c.get(`/${mode}/businesses/:bid/documents/:id`, async (req, reply) => {
    const p = await dataPage(s, req, reply);
    if (!p) return reply;
    const business = await ownedBusiness(s, mode, p.accountId, pathParam(req, 'bid'));
    const id = pathParam(req, 'id');
    const db = s.databases[mode].db;
    const document = documentView(await getDocumentRow(db, business.id, id));
    const [prints, events] = await Promise.all([
      printLog(db, business.id, document.id),
      listDocumentEvents(db, { mode, accountId: p.accountId, businessId: business.id, documentId: document.id }, DOCUMENT_EVENTS_SHOWN),
    ]);
    return reply.type(htmlType).send(documentPage(p.f, { user: p.user, mode, business, document, prints, events }));
  });
}

/** The PDF in the document page's frame: framed by the console's own pages only. */
function registerDocumentPdf(c: Api, s: Services, mode: Mode): void {
  c.get(`/${mode}/businesses/:bid/documents/:id/pdf`, async (req, reply) => {
    const accountId = signedIn(req, reply);
    if (!accountId) return reply;
    const business = await ownedBusiness(s, mode, accountId, pathParam(req, 'bid'));
    const id = pathParam(req, 'id');
    const pdf = await documentPreviewPdf(s, s.databases[mode], business, id);
    return reply
      .header('X-Frame-Options', 'SAMEORIGIN')
      .header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'self'")
      .header('Content-Type', 'application/pdf')
      .header('Content-Length', String(pdf.size))
      .header('Content-Disposition', `inline; filename="${pdf.name.replace(/[^\w.-]+/g, '_')}"`)
      .header('X-Print-Variant', pdf.variant)
      .send(pdf.body);
  });
}
