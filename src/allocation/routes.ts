import { emptyBodyIsEmptyObject } from '../platform/http/openapi.ts';
/**
 * API routes of allocation numbers (under /v1, behind the key):
 *   POST   /businesses/{bid}/allocation/connect      start the authority's consent flow
 *   GET    /businesses/{bid}/allocation/connection   the grant's state and expiry
 *   DELETE /businesses/{bid}/allocation/connection   forget the grant
 *   POST   /businesses/{bid}/documents/{id}/allocation  strict mode: a draft's number, synchronously
 */
import type { Api } from '../platform/http/api.ts';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidIdParams, BidParams, errors, IsoDateTime, Nullable, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { validation } from '../platform/errors.ts';
import { businessOf } from '../businesses/index.ts';
import { connectionView, disconnect, requestAllocation, startConsent } from './consent.ts';
import { requireProvider } from './providers.ts';

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
  {
    returnUrl: Type.Optional(
      Type.String({
        format: 'uri',
        maxLength: 2000,
        description: 'Where the callback sends the dealer afterwards (with ?allocation=connected|denied|failed).',
      }),
    ),
  },
  { additionalProperties: false },
);

export function registerAllocationRoutes(api: Api, s: Services): void {
  registerConnect(api, s);
  registerConnection(api, s);
  registerDocumentAllocation(api, s);
}

function registerConnect(api: Api, s: Services): void {
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
      const body = req.body;
      const ctx = ctxOf(req);
      const business = businessOf(req);
      requireProvider(s, ctx.mode);
      if (body.returnUrl && !/^https?:\/\//i.test(body.returnUrl)) throw validation('body.returnUrl', 'must be an http(s) address');
      const started = await startConsent(s, ctx, business.id, body.returnUrl ?? null);
      return reply.status(201).send({ ok: true, ...started });
    },
  );
}

function registerConnection(api: Api, s: Services): void {
  api.get(
    '/businesses/:bid/allocation/connection',
    {
      config: { scope: 'businesses' },
      schema: {
        tags,
        operationId: 'getAllocationConnection',
        summary: "The business's grant at the tax authority: state and expiry",
        params: BidParams,
        response: { 200: Ok({ connection: ConnectionView }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      return { ok: true as const, connection: await connectionView(s, ctx.mode, ctx.database.db, businessOf(req).id) };
    },
  );

  api.delete(
    '/businesses/:bid/allocation/connection',
    {
      config: { scope: 'businesses', allowWhenDeactivated: true },
      schema: {
        tags,
        operationId: 'deleteAllocationConnection',
        summary: "Forget the business's grant (the dealer can also revoke it at the authority)",
        params: BidParams,
        response: { 200: Ok({ deleted: Type.Boolean() }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => ({ ok: true as const, deleted: await disconnect(s, ctxOf(req), businessOf(req).id) }),
  );
}

function registerDocumentAllocation(api: Api, s: Services): void {
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
      const { id } = req.params;
      const { status, document } = await requestAllocation(s, ctxOf(req), businessOf(req), id);
      return reply.status(status).send({ ok: true, document });
    },
  );
}
