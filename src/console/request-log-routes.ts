import type { Api } from '../platform/http/api.ts';
import type { Mode } from '../platform/db/engine.ts';
import type { Services } from '../platform/http/services.ts';
import { listRequests, RequestsQuery } from '../request-log/index.ts';
import { accountMode, dataPage, dropEmptyFields, MODES, PAGE_ROWS, queryProblem } from './browse-scope.ts';
import { signedIn } from './context.ts';
import { requestsPage, requestsPath } from './views/requests-page.ts';

export function registerRequestLogPages(c: Api, s: Services): void {
  c.get('/requests', async (req, reply) => {
    const accountId = signedIn(req, reply);
    if (!accountId) return reply;
    return reply.redirect(requestsPath(await accountMode(s, accountId)), 303);
  });
  for (const mode of MODES) registerRequestsPage(c, s, mode);
}

/** GET /requests of the API, for the signed-in account: its requests of the last 7 days in one mode, searchable by request id. */
function registerRequestsPage(c: Api, s: Services, mode: Mode): void {
  c.get(`/${mode}/requests`, { schema: { querystring: RequestsQuery }, attachValidation: true, preValidation: dropEmptyFields }, async (req, reply) => {
    const p = await dataPage(s, req, reply);
    if (!p) return reply;
    const problem = queryProblem(req);
    const q = problem ? {} : req.query;
    // This process's buffered rows first, as the API does: a request made a moment ago is found.
    await s.requestLog.flush();
    const result = problem
      ? { requests: [], nextCursor: null }
      : await listRequests(s.databases[mode].db, p.accountId, { requestId: q.requestId, cursor: q.cursor, take: PAGE_ROWS });
    return reply
      .status(problem ? 400 : 200)
      .type('text/html; charset=utf-8')
      .send(requestsPage(p.f, { user: p.user, mode, requestId: q.requestId, cursor: q.cursor, ...result, problem }));
  });
}
