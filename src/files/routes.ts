import type { Api } from '../platform/http/api.ts';
import { ctxOf } from '../platform/http/context.ts';
import { Type } from 'typebox';
import { AUTH_ERRORS, BidParams, errors, IdParams, Ok } from '../platform/http/schemas.ts';
import { businessOf } from '../businesses/index.ts';
import { MAX_THUMB_IDS, thumbnails } from './thumbs.ts';
import type { Services } from '../platform/http/services.ts';
import { binaryResponse } from '../platform/http/openapi.ts';
import { RECEIPT_MIMES } from '../expenses/index.ts';
import { fileReading } from '../platform/file-read.ts';
import { openAccountFile } from './access.ts';

/** What is stored: receipts (RECEIPT_MIMES: images and PDF), logos (PNG, JPEG), document PDFs, export and backup zips, PCN874 files (ASCII text). */
const STORED_FILE_MIMES = [...new Set([...RECEIPT_MIMES, 'application/zip', 'text/plain'])];

export function registerFileRoutes(api: Api, s: Services): void {
  api.get(
    '/files/:id',
    {
      config: { scope: 'export' },
      schema: {
        tags: ['files'],
        operationId: 'downloadFile',
        summary: "Download a stored file (its bytes, with the stored mime type); files of the account's own businesses only",
        params: IdParams,
        response: {
          200: binaryResponse('The stored bytes under their stored type.', STORED_FILE_MIMES, {
            'Content-Disposition': Type.String({ description: '`inline; filename="…"` with the stored name.' }),
            'X-Content-Sha256': Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the bytes, hex.' }),
          }),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const { id } = req.params;
      // Checked against the file's sha256 before the first byte goes out; a large file streams from a checked spool.
      const { file, body } = await openAccountFile(s, ctx.database, ctx.key.accountId, id);
      const safeName = file.name.replace(/[^\w.-]+/g, '_');
      return reply
        .header('Content-Type', file.mime)
        .header('Content-Length', String(file.size))
        .header('Content-Disposition', `inline; filename="${safeName}"`)
        .header('X-Content-Sha256', file.sha256)
        .send(body);
    },
  );
  api.post(
    '/businesses/:bid/files/thumbs',
    {
      // A read: stays open on a deactivated business.
      config: { scope: 'export', allowWhenDeactivated: true },
      schema: {
        tags: ['files'],
        operationId: 'getFileThumbnails',
        summary: `Small JPEG data-URI previews of stored image files (up to ${MAX_THUMB_IDS} ids); non-images and unknown ids are absent`,
        params: BidParams,
        body: Type.Object(
          { ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: MAX_THUMB_IDS }) },
          { additionalProperties: false },
        ),
        response: { 200: Ok({ thumbs: Type.Record(Type.String(), Type.String()) }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const { ids } = req.body;
      return { ok: true as const, thumbs: await thumbnails(fileReading(s, ctxOf(req).database), businessOf(req).id, ids) };
    },
  );
}
