/**
 * API routes of allocation numbers (under /v1, behind the key):
 *   POST   /businesses/{bid}/allocation/connect      start the authority's consent flow
 *   GET    /businesses/{bid}/allocation/connection   the grant's state and expiry
 *   DELETE /businesses/{bid}/allocation/connection   forget the grant
 *   POST   /businesses/{bid}/documents/{id}/allocation  strict mode: a draft's number, synchronously
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidIdParams, BidParams, errors, IsoDateTime, Nullable, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { appendAudit } from '../platform/audit.ts';
import { validation } from '../platform/errors.ts';
import { businessOf } from '../businesses/guard.ts';
import { documentView, getDocumentRow } from '../documents/snapshot.ts';
import { connectionState, createConsentRequest, deleteConnection, getConnection, newState, type Connection } from './connections.ts';
import { requireProvider, providerFor } from './providers.ts';
import { requestDraftAllocation } from './draft-request.ts';
import { retryFailedAllocation } from './retry.ts';

const tags = ['allocation'];

const ConnectionView = Type.Object({
  status: Type.String({ description: 'not_connected, connected, expiring (within ITA_EXPIRY_WARNING_HOURS) or expired' }),
  provider: Type.String({ description: '`ita` (the tax authority) or `simulator` (sandbox and development)' }),
  required: Type.Boolean({ description: 'Whether allocation requests of this mode need the grant (the simulator approves without one).' }),
  connectedAt: Nullable(IsoDateTime),
  expiresAt: Nullable(IsoDateTime),
  accessTokenExpiresAt: Nullable(IsoDateTime),
  refreshedAt: Nullable(IsoDateTime),
  problem: Nullable(Type.String()),
});

const ConnectBody = Type.Object(
  { returnUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2000, description: 'Where the callback sends the dealer afterwards (with ?allocation=connected|denied|failed).' })) },
  { additionalProperties: false },
);

/** The connect body is optional: no body means no options. */
const emptyBodyIsEmptyObject = async (req: FastifyRequest) => {
  if (req.body === undefined || req.body === null) req.body = {};
};

function view(s: Services, mode: 'live' | 'sandbox', c: Connection | null) {
  const p = providerFor(s, mode);
  // A grant made through the simulator (development) does not count once the real client answers.
  if (c && p && c.provider !== p.kind) c = null;
  return {
    status: connectionState(c, s.clock.now(), s.config.allocation.expiryWarningMs),
    provider: p?.kind ?? 'ita',
    required: p?.needsConnection ?? true,
    connectedAt: c?.connectedAt ?? null,
    expiresAt: c?.refreshExpiresAt ?? null,
    accessTokenExpiresAt: c?.accessExpiresAt ?? null,
    refreshedAt: c?.refreshedAt ?? null,
    problem: c?.brokenReason ?? null,
  };
}

export function registerAllocationRoutes(api: FastifyInstance, s: Services): void {
  api.post(
    '/businesses/:bid/allocation/connect',
    {
      config: { scope: 'businesses' },
      preValidation: emptyBodyIsEmptyObject,
      schema: {
        tags,
        operationId: 'connectAllocation',
        summary: "Start the tax authority's consent flow for the business (send the dealer to authorizationUrl)",
        params: BidParams,
        body: ConnectBody,
        response: { 201: Ok({ authorizationUrl: Type.String(), state: Type.String(), expiresAt: IsoDateTime }), ...errors(...AUTH_ERRORS, 503) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const business = businessOf(req);
      const provider = requireProvider(s, ctx.mode);
      const body = (req.body ?? {}) as Static<typeof ConnectBody>;
      if (body.returnUrl && !/^https?:\/\//i.test(body.returnUrl)) throw validation('body.returnUrl', 'must be an http(s) address');
      const now = s.clock.now();
      const state = newState(ctx.mode);
      const request = await ctx.database.db.transaction(async (tx) => {
        const r = await createConsentRequest(tx, now, { state, businessId: business.id, keyId: ctx.key.id, accountId: ctx.key.accountId, returnUrl: body.returnUrl ?? null });
        await appendAudit(tx, now, ctx.actor, {
          businessId: business.id, action: 'allocation.connect_started', entityType: 'ita_connection', entityId: business.id,
          after: { provider: provider.kind, expiresAt: r.expiresAt },
        });
        return r;
      });
      return reply.status(201).send({ ok: true, authorizationUrl: provider.authorizationUrl(state), state, expiresAt: request.expiresAt });
    },
  );

  api.get(
    '/businesses/:bid/allocation/connection',
    {
      config: { scope: 'businesses' },
      schema: { tags, operationId: 'getAllocationConnection', summary: "The business's grant at the tax authority: state and expiry", params: BidParams, response: { 200: Ok({ connection: ConnectionView }), ...errors(...AUTH_ERRORS) } },
    },
    async (req) => {
      const ctx = ctxOf(req);
      return { ok: true as const, connection: view(s, ctx.mode, await getConnection(ctx.database.db, businessOf(req).id)) };
    },
  );

  api.delete(
    '/businesses/:bid/allocation/connection',
    {
      config: { scope: 'businesses', allowWhenDeactivated: true },
      schema: { tags, operationId: 'deleteAllocationConnection', summary: "Forget the business's grant (the dealer can also revoke it at the authority)", params: BidParams, response: { 200: Ok({ deleted: Type.Boolean() }), ...errors(...AUTH_ERRORS) } },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const business = businessOf(req);
      const now = s.clock.now();
      const deleted = await ctx.database.db.transaction(async (tx) => {
        const gone = await deleteConnection(tx, business.id);
        if (gone) await appendAudit(tx, now, ctx.actor, { businessId: business.id, action: 'allocation.disconnected', entityType: 'ita_connection', entityId: business.id });
        return gone;
      });
      return { ok: true as const, deleted };
    },
  );

  api.post(
    '/businesses/:bid/documents/:id/allocation',
    {
      config: { scope: 'documents' },
      schema: {
        tags,
        operationId: 'requestDocumentAllocation',
        summary: "Request a draft's allocation number now (strict mode); the draft then issues with it. On an issued document whose request failed: ask again",
        description:
          'Draft: uses the final figures issue will freeze. 200 with `allocation.status` `granted` (and `allocationNumber`) or `refused` (with `allocation.error`). ' +
          '502 `provider` when the authority cannot be reached; 503 `unconfigured` when live has no tax authority client or the business has not connected. ' +
          'Issued document with `allocation.status` `failed`: 202, back to `pending` and asked again in the background; any other issued document: 409 `not_draft`.',
        params: BidIdParams,
        response: { 200: Ok({ document: Type.Ref('Document') }), 202: Ok({ document: Type.Ref('Document') }), ...errors(...AUTH_ERRORS, 409, 502, 503) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const business = businessOf(req);
      const { id } = req.params as { id: string };
      const current = await getDocumentRow(ctx.database.db, business.id, id);
      if (current.status === 'issued') {
        const d = await retryFailedAllocation(s, ctx, business.id, id);
        return reply.status(202).send({ ok: true, document: documentView(d) });
      }
      const d = await requestDraftAllocation(s, ctx, business, id);
      return reply.status(200).send({ ok: true, document: documentView(d) });
    },
  );
}
