import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidParams, errors, Ok } from '../platform/http/schemas.ts';
import { IdempotencyKeyHeaders } from '../platform/http/openapi.ts';
import type { Services } from '../platform/http/services.ts';
import { businessOf } from '../businesses/index.ts';
import { ExportRunSchema, FileMetaSchema } from '../exports/index.ts';
import { runPcn874Export } from './pcn874-run.ts';
import { VatPeriodString } from './schemas.ts';

export function registerVatRoutes(api: FastifyInstance, s: Services): void {
  api.post(
    '/businesses/:bid/exports/pcn874',
    {
      config: { scope: 'export' as const, allowWhenDeactivated: true },
      schema: {
        tags: ['exports'],
        operationId: 'createPcn874Export',
        headers: IdempotencyKeyHeaders,
        summary: 'Produce the PCN874 file of a VAT period (ASCII, CR LF), verified by reading it back against the VAT report of the period',
        params: BidParams,
        body: Type.Object({ period: VatPeriodString }, { additionalProperties: false }),
        response: { 201: Ok({ exportRun: ExportRunSchema, file: FileMetaSchema }), ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const result = await runPcn874Export(s, ctx.database, { business: businessOf(req), body: req.body as { period: string }, actor: ctx.actor });
      return reply.status(201).send({ ok: true, ...result });
    },
  );
}
