import type { Api } from '../platform/http/api.ts';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, errors, IdParams, Ok } from '../platform/http/schemas.ts';
import { NextCursor } from '../platform/http/cursor.ts';
import { Event, EventsQuery } from './schemas.ts';
import { getEvent, listEvents } from './list.ts';

const tags = ['events'];
// Events are what webhooks deliver: the same scope reads both.
const config = { scope: 'businesses' as const };

/** `type=a,b` reads as `type=a&type=b`, so both spellings filter the same (before the schema checks each name). */
function splitCommaList(query: unknown): void {
  const q = query as Record<string, unknown>;
  const value = q.type;
  if (value === undefined) return;
  q.type = [value].flat().flatMap((v) => (typeof v === 'string' ? v.split(',').filter((s) => s !== '') : [v]));
}

export function registerEventRoutes(api: Api): void {
  api.get(
    '/events',
    {
      config,
      preValidation: async (req) => splitCommaList(req.query),
      schema: {
        tags,
        operationId: 'listEvents',
        summary: "The key's events (its account, its mode), newest first; filter by type, business and time; page with `cursor`",
        description:
          'Every event recorded in the last 30 days (older ones are pruned), whether or not an endpoint received it. `data` is what a webhook delivery carries.',
        querystring: EventsQuery,
        response: { 200: Ok({ events: Type.Array(Event), nextCursor: NextCursor }, 'EventPage'), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const q = req.query;
      return { ok: true as const, ...(await listEvents(ctx.database.db, ctx.mode, ctx.key.accountId, { ...q, take: q.take ?? 200 })) };
    },
  );

  api.get(
    '/events/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'getEvent',
        summary: 'Read one event',
        params: IdParams,
        response: { 200: Ok({ event: Event }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      return { ok: true as const, event: await getEvent(ctx.database.db, ctx.mode, ctx.key.accountId, req.params.id) };
    },
  );
}
