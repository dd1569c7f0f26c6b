import type { Api } from '../platform/http/api.ts';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, errors, Ok } from '../platform/http/schemas.ts';
import { NextCursor } from '../platform/http/cursor.ts';
import type { Services } from '../platform/http/services.ts';
import { ApiRequest, RequestsQuery } from './schemas.ts';
import { listRequests } from './list.ts';

export function registerRequestLogRoutes(api: Api, s: Services): void {
  // Like GET /usage: the account's own figures, readable with any of its keys (no scope).
  api.get(
    '/requests',
    {
      schema: {
        tags: ['usage'],
        operationId: 'listRequests',
        summary: "The account's API requests of the last 7 days in the key's mode, newest first; find one by `requestId`; page with `cursor`",
        description:
          'Every answered request sent with one of the account’s keys (a missing or unknown key belongs to no account). Each process writes its rows about once a second; this process’s own are written before the read.',
        querystring: RequestsQuery,
        response: { 200: Ok({ requests: Type.Array(ApiRequest), nextCursor: NextCursor }, 'ApiRequestPage'), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const q = req.query;
      await s.requestLog.flush();
      return { ok: true as const, ...(await listRequests(ctx.database.db, ctx.key.accountId, { ...q, take: q.take ?? 200 })) };
    },
  );
}
