import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidParams, errors, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { IdempotencyKeyHeaders } from '../platform/http/openapi.ts';
import { MetadataQuery } from '../platform/metadata.ts';
import { Business, BusinessCreate, BusinessPatch, type BusinessCreateBody, type BusinessPatchBody } from './schemas.ts';
import { createBusiness, patchBusiness, setActive } from './service.ts';
import { listOwnedBusinesses, viewOf, viewsOf } from './records.ts';
import { businessOf } from './guard.ts';

const tags = ['businesses'];
const BusinessOk = Ok({ business: Business });

const config = { scope: 'businesses' as const };

export function registerBusinessRoutes(api: FastifyInstance, s: Services): void {
  registerBusinessListRoutes(api, s);
  registerOneBusinessRoutes(api, s);
  registerActivationRoutes(api, s);
}

/** Businesses: create and list. */
function registerBusinessListRoutes(api: FastifyInstance, s: Services): void {
  api.post(
    '/businesses',
    {
      config,
      schema: {
        tags,
        operationId: 'createBusiness',
        headers: IdempotencyKeyHeaders,
        summary: 'Create a business (one Israeli dealer)',
        description:
          'A business is the dealer whose books these are: every party, document, expense, export and report belongs to one. ' +
          'Its tax id is checksum-validated; its name, tax id and dealer type are printed on its documents, and tax id and dealer ' +
          'type lock once it has issued a document. Answers the business with its `id` (`biz_…`), the `bid` of every other call.',
        body: BusinessCreate,
        response: { 201: BusinessOk, ...errors(...AUTH_ERRORS) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const business = await createBusiness(s, ctx.mode, ctx.actor as typeof ctx.actor & { keyId: string; accountId: string }, req.body as BusinessCreateBody);
      return reply.status(201).send({ ok: true, business });
    },
  );

  api.get(
    '/businesses',
    {
      config,
      schema: {
        tags,
        operationId: 'listBusinesses',
        summary: "List the account's businesses",
        description:
          "Every business of the key's account in the books of the key's mode (sandbox for `bk_test_`, live otherwise), with its numbering, branding and whether it can write.",
        querystring: Type.Object({ metadata: MetadataQuery }, { additionalProperties: false }),
        response: { 200: Ok({ businesses: Type.Array(Business) }, 'BusinessList'), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const rows = await listOwnedBusinesses(ctx.database.db, ctx.key.accountId, (req.query as { metadata?: string[] }).metadata);
      return { ok: true as const, businesses: await viewsOf(s, ctx.database.db, ctx.key.accountId, rows) };
    },
  );
}

/** One business: read and change. */
function registerOneBusinessRoutes(api: FastifyInstance, s: Services): void {
  api.get(
    '/businesses/:bid',
    {
      config,
      schema: {
        tags,
        operationId: 'getBusiness',
        summary: 'Read a business',
        description:
          'Its identity (name, tax id, dealer type), contact details, VAT rate, numbering, branding, approval and whether writes are open (`writesOpen`).',
        params: BidParams,
        response: { 200: BusinessOk, ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      return { ok: true as const, business: await viewOf(s, ctx.database.db, businessOf(req)) };
    },
  );

  api.patch(
    '/businesses/:bid',
    {
      config,
      schema: {
        tags,
        operationId: 'updateBusiness',
        summary: 'Update a business',
        description:
          'Changes only the fields given; null clears an optional one. Tax id and dealer type answer 409 once the business has ' +
          "issued a document, and a series' first number once that series has one. Documents already issued keep what they printed.",
        params: BidParams,
        body: BusinessPatch,
        response: { 200: BusinessOk, ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const business = await patchBusiness(s, {
        mode: ctx.mode,
        actor: { ...ctx.actor, accountId: ctx.key.accountId },
        id: businessOf(req).id,
        body: req.body as BusinessPatchBody,
      });
      return { ok: true as const, business };
    },
  );
}

/** Deactivate and reactivate. */
function registerActivationRoutes(api: FastifyInstance, s: Services): void {
  for (const [path, active] of [
    ['deactivate', false],
    ['reactivate', true],
  ] as const) {
    api.post(
      `/businesses/:bid/${path}`,
      {
        config: { ...config, allowWhenDeactivated: true },
        schema: {
          tags,
          operationId: `${path}Business`,
          summary: active ? 'Reactivate: writes are accepted again' : 'Deactivate: every write is refused (403) and reads keep working',
          params: BidParams,
          response: { 200: BusinessOk, ...errors(...AUTH_ERRORS) },
        },
      },
      async (req) => {
        const ctx = ctxOf(req);
        const business = await setActive(s, { mode: ctx.mode, actor: { ...ctx.actor, accountId: ctx.key.accountId }, id: businessOf(req).id, active });
        return { ok: true as const, business };
      },
    );
  }
}
