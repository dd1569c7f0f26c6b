import type { Api } from '../platform/http/api.ts';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidIdParams, BidParams, errors, IsoDate, Nullable, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { IdempotencyKeyHeaders } from '../platform/http/openapi.ts';
import { CursorQuery, NextCursor } from '../platform/http/cursor.ts';
import { businessOf } from '../businesses/index.ts';
import { runOpenfrmtExport } from './run.ts';
import { getRun } from './store.ts';
import { listRuns } from './list.ts';
import { ExportRunSchema, FileMetaSchema } from './schemas.ts';

const tags = ['exports'];

const ExportBody = Type.Object(
  { from: IsoDate, to: IsoDate },
  { additionalProperties: false, description: 'Documents are cut by document date, both ends included.' },
);

export function registerExportRoutes(api: Api, s: Services): void {
  registerCreateRoute(api, s);
  registerListRoute(api);
  registerGetRoute(api);
}

function registerCreateRoute(api: Api, s: Services): void {
  const config = { scope: 'export' as const, allowWhenDeactivated: true };
  api.post(
    '/businesses/:bid/exports/openfrmt',
    {
      config,
      schema: {
        tags,
        operationId: 'createOpenfrmtExport',
        headers: IdempotencyKeyHeaders,
        summary: 'Produce the OPENFRMT v1.31 files (INI.TXT, BKMVDATA.TXT) as a zip, verified by reading them back',
        params: BidParams,
        body: ExportBody,
        response: { 201: Ok({ exportRun: ExportRunSchema, file: FileMetaSchema }), ...errors(...AUTH_ERRORS, 409, 503) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const body = req.body;
      const result = await runOpenfrmtExport(s, ctx.database, { business: businessOf(req), range: body, actor: ctx.actor });
      return reply.status(201).send({ ok: true, ...result });
    },
  );
}

function registerListRoute(api: Api): void {
  api.get(
    '/businesses/:bid/exports',
    {
      config: { scope: 'export' },
      schema: {
        tags,
        operationId: 'listExports',
        summary: 'List export runs, newest first; page with `cursor` (the `nextCursor` of the previous page)',
        params: BidParams,
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
            before: Type.Optional(
              Type.String({ maxLength: 64, description: 'A run id: runs whose id sorts below it. Kept for compatibility: page with `cursor`.' }),
            ),
            cursor: Type.Optional(CursorQuery),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Ok({ exportRuns: Type.Array(Type.Intersect([ExportRunSchema, Type.Object({ file: Nullable(FileMetaSchema) })])), nextCursor: NextCursor }),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (req) => {
      const { limit = 20, before, cursor } = req.query;
      return { ok: true as const, ...(await listRuns(ctxOf(req).database.db, businessOf(req).id, { limit, before, cursor })) };
    },
  );
}

function registerGetRoute(api: Api): void {
  api.get(
    '/businesses/:bid/exports/:id',
    {
      config: { scope: 'export' },
      schema: {
        tags,
        operationId: 'getExport',
        summary: 'Read one export run with its file metadata',
        description:
          'The run (its period, state, record counts) and the zip it produced (`file`, null until it exists), by the id createOpenfrmtExport or createPcn874Export answered.',
        params: BidIdParams,
        response: { 200: Ok({ exportRun: ExportRunSchema, file: Nullable(FileMetaSchema) }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const { id } = req.params;
      return { ok: true as const, ...(await getRun(ctxOf(req).database.db, businessOf(req).id, id)) };
    },
  );
}
