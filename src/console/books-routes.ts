import type { FastifyRequest } from 'fastify';
import type { Api } from '../platform/http/api.ts';
import { ExpenseListQuery, listExpenses } from '../expenses/index.ts';
import { listRuns } from '../exports/index.ts';
import { openAccountFile, thumbnails } from '../files/index.ts';
import { listPartiesPage, PartiesQuery } from '../parties/index.ts';
import type { Mode } from '../platform/db/engine.ts';
import { fileReading } from '../platform/file-read.ts';
import type { Services } from '../platform/http/services.ts';
import { dataPage, dropEmptyFields, MODES, ownedBusiness, PAGE_ROWS, queryProblem } from './browse-scope.ts';
import { signedIn } from './context.ts';
import { cursorOf, pathParam, type RawQuery } from './request-parts.ts';
import { expensesPage, exportsPage, partiesPage } from './views/books-pages.ts';

const htmlType = 'text/html; charset=utf-8';

export function registerBooksPages(c: Api, s: Services): void {
  for (const mode of MODES) {
    registerPartiesPage(c, s, mode);
    registerExpensesPage(c, s, mode);
    registerExportsPage(c, s, mode);
    registerFileDownload(c, s, mode);
  }
}

/** The business of a page, after its signed-in account: another account's is 404. */
async function businessPage(s: Services, req: FastifyRequest, reply: Parameters<typeof dataPage>[2], mode: Mode) {
  const p = await dataPage(s, req, reply);
  if (!p) return null;
  return { ...p, business: await ownedBusiness(s, mode, p.accountId, pathParam(req, 'bid')) };
}

/** The API's party list (its query schema: a refusal shows its message), newest first by cursor. */
function registerPartiesPage(c: Api, s: Services, mode: Mode): void {
  c.get(
    `/${mode}/businesses/:bid/parties`,
    { schema: { querystring: PartiesQuery }, attachValidation: true, preValidation: dropEmptyFields },
    async (req, reply) => {
      const p = await businessPage(s, req, reply, mode);
      if (!p) return reply;
      const problem = queryProblem(req);
      const q = problem ? {} : req.query;
      const result = problem
        ? { parties: [], nextCursor: null }
        : await listPartiesPage(s.databases[mode].db, p.business.id, { kind: q.kind, metadata: q.metadata, cursor: q.cursor, take: PAGE_ROWS });
      const view = { user: p.user, mode, business: p.business, kind: q.kind, cursor: q.cursor, ...result, problem };
      return reply
        .status(problem ? 400 : 200)
        .type(htmlType)
        .send(partiesPage(p.f, view));
    },
  );
}

/** The API's expense list (its query schema: a refusal shows its message), with thumbnails of the page's receipts. */
function registerExpensesPage(c: Api, s: Services, mode: Mode): void {
  c.get(
    `/${mode}/businesses/:bid/expenses`,
    { schema: { querystring: ExpenseListQuery }, attachValidation: true, preValidation: dropEmptyFields },
    async (req, reply) => {
      const p = await businessPage(s, req, reply, mode);
      if (!p) return reply;
      const problem = queryProblem(req);
      const q = problem ? {} : req.query;
      const database = s.databases[mode];
      const result = problem
        ? { expenses: [], nextCursor: null }
        : await listExpenses(database.db, p.business.id, { ...q, take: PAGE_ROWS, skip: 0, counts: undefined });
      const receipts = result.expenses.flatMap((e) => (e.receiptFileId ? [e.receiptFileId] : []));
      const thumbs = await thumbnails(fileReading(s, database), p.business.id, receipts);
      const filters = { status: q.status, from: q.from, to: q.to, q: q.q };
      const view = { user: p.user, mode, business: p.business, cursor: q.cursor, ...result, thumbs, filters, problem };
      return reply
        .status(problem ? 400 : 200)
        .type(htmlType)
        .send(expensesPage(p.f, view));
    },
  );
}

function registerExportsPage(c: Api, s: Services, mode: Mode): void {
  c.get<{ Querystring: RawQuery }>(`/${mode}/businesses/:bid/exports`, async (req, reply) => {
    const p = await businessPage(s, req, reply, mode);
    if (!p) return reply;
    const cursor = cursorOf(req.query);
    const result = await listRuns(s.databases[mode].db, p.business.id, { limit: PAGE_ROWS, cursor });
    return reply.type(htmlType).send(exportsPage(p.f, { user: p.user, mode, business: p.business, cursor, ...result }));
  });
}

/** A stored file of the account's businesses (receipts, export zips): GET /files/{id}'s checked bytes. */
function registerFileDownload(c: Api, s: Services, mode: Mode): void {
  c.get(`/${mode}/files/:id`, async (req, reply) => {
    const accountId = signedIn(req, reply);
    if (!accountId) return reply;
    const { file, body } = await openAccountFile(s, s.databases[mode], accountId, pathParam(req, 'id'));
    const safeName = file.name.replace(/[^\w.-]+/g, '_');
    // An attachment: a stored file is never rendered as a page of the console's origin.
    return reply
      .header('Content-Type', file.mime)
      .header('Content-Length', String(file.size))
      .header('Content-Disposition', `attachment; filename="${safeName}"`)
      .header('X-Content-Sha256', file.sha256)
      .send(body);
  });
}
