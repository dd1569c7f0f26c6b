import type { Api } from '../platform/http/api.ts';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidParams, errors, IsoDateTime, Nullable, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { IdempotencyKeyHeaders } from '../platform/http/openapi.ts';
import { CursorQuery, NextCursor } from '../platform/http/cursor.ts';
import { businessOf } from '../businesses/index.ts';
import { FileMetaSchema } from '../exports/index.ts';
import { createBackup, listBackups } from './create.ts';

const tags = ['backups'];

const BackupSchema = Type.Object({
  id: Type.String({ description: '`bak_…`' }),
  fileId: Type.String({
    description: 'The zip: manifest.json (sha256 of every entry), manifest.seal.json (its HMAC-SHA256), tables/<table>.jsonl, files/<sha256>.',
  }),
  createdAt: IsoDateTime,
  summary: Type.Object({
    format: Type.String(),
    tables: Type.Record(Type.String(), Type.Integer(), { description: 'Rows per table.' }),
    files: Type.Integer(),
    manifestSha256: Type.String(),
    sealKeyId: Type.Optional(
      Type.String({ description: 'Names the key that sealed manifest.json (HMAC-SHA256 in manifest.seal.json); a restore needs that key.' }),
    ),
  }),
});

export function registerBackupRoutes(api: Api, s: Services): void {
  api.post(
    '/businesses/:bid/backups',
    {
      config: { scope: 'export', allowWhenDeactivated: true },
      schema: {
        tags,
        operationId: 'createBackup',
        headers: IdempotencyKeyHeaders,
        summary: 'Write a zip of every record of the business as JSON plus its files (restore: `pinkas backups restore`)',
        params: BidParams,
        response: { 201: Ok({ backup: BackupSchema, file: FileMetaSchema }), ...errors(...AUTH_ERRORS, 503) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      return reply.status(201).send({ ok: true, ...(await createBackup(s, ctx.database, businessOf(req), ctx.actor)) });
    },
  );

  api.get(
    '/businesses/:bid/backups',
    {
      config: { scope: 'export' },
      schema: {
        tags,
        operationId: 'listBackups',
        summary: 'List backups, newest first; page with `cursor` (the `nextCursor` of the previous page)',
        params: BidParams,
        querystring: Type.Object(
          { take: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 200 })), cursor: Type.Optional(CursorQuery) },
          { additionalProperties: false },
        ),
        response: {
          200: Ok({ backups: Type.Array(Type.Intersect([BackupSchema, Type.Object({ file: Nullable(FileMetaSchema) })])), nextCursor: NextCursor }),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (req) => {
      const { take = 200, cursor } = req.query;
      return { ok: true as const, ...(await listBackups(ctxOf(req).database.db, businessOf(req).id, { take, cursor })) };
    },
  );
}
