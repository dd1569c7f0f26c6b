import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidIdParams, BidParams, errors, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { IdempotencyKeyHeaders } from '../platform/http/openapi.ts';
import { businessOf } from '../businesses/index.ts';
import {
  PartiesQuery,
  Party,
  PartyCreate,
  PartyFindOrCreate,
  PartyPatch,
  type PartyCreateBody,
  type PartyFindOrCreateBody,
  type PartyKind,
  type PartyPatchBody,
} from './schemas.ts';
import { createParty, findOrCreateParty, getParty, listPartiesPage, newPartyFrom, patchParty } from './service.ts';
import { NextCursor } from '../platform/http/cursor.ts';

const tags = ['parties'];

const config = { scope: 'businesses' as const };

export function registerPartyRoutes(api: FastifyInstance, s: Services): void {
  registerPartyReadRoutes(api);
  registerPartyCreateRoutes(api, s);
  registerPartyUpdateRoute(api, s);
}

/** Parties: list and read. */
function registerPartyReadRoutes(api: FastifyInstance): void {
  api.get(
    '/businesses/:bid/parties',
    {
      config,
      schema: {
        tags,
        operationId: 'listParties',
        summary: 'List saved customers and suppliers, newest first; page with `cursor` (the `nextCursor` of the previous page)',
        params: BidParams,
        querystring: PartiesQuery,
        response: { 200: Ok({ parties: Type.Array(Party), nextCursor: NextCursor }, 'PartyPage'), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const { kind, take = 200, cursor, metadata } = req.query as { kind?: PartyKind; take?: number; cursor?: string; metadata?: string[] };
      return { ok: true as const, ...(await listPartiesPage(ctxOf(req).database.db, businessOf(req).id, { kind, take, cursor, metadata })) };
    },
  );

  api.get(
    '/businesses/:bid/parties/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'getParty',
        summary: 'Read a party',
        description: 'A saved customer or supplier of the business: name, tax id, phone, email, address, its key in the export.',
        params: BidIdParams,
        response: { 200: Ok({ party: Party }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const { id } = req.params as { id: string };
      return { ok: true as const, party: await getParty(ctxOf(req).database.db, businessOf(req).id, id) };
    },
  );
}

/** Create, and find-or-create by tax id. */
function registerPartyCreateRoutes(api: FastifyInstance, s: Services): void {
  api.post(
    '/businesses/:bid/parties',
    {
      config,
      schema: {
        tags,
        operationId: 'createParty',
        headers: IdempotencyKeyHeaders,
        summary: 'Create a party',
        description:
          'Saves a customer or supplier (`kind`) of the business. A document draft names it with `party: {partyId}`; issuing copies ' +
          'its details into the document. To avoid duplicates when the customer may already exist, use findOrCreateParty.',
        params: BidParams,
        body: PartyCreate,
        response: { 201: Ok({ party: Party }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const input = newPartyFrom(req.body as PartyCreateBody);
      const party = await createParty(ctx.database, { at: s.clock.now(), actor: ctx.actor, businessId: businessOf(req).id, party: input });
      return reply.status(201).send({ ok: true, party });
    },
  );

  api.post(
    '/businesses/:bid/parties/find-or-create',
    {
      config,
      schema: {
        tags,
        operationId: 'findOrCreateParty',
        headers: IdempotencyKeyHeaders,
        summary: 'Find a party by phone (last nine digits), then exact name; create it otherwise',
        params: BidParams,
        body: PartyFindOrCreate,
        response: { 200: Ok({ party: Party, created: Type.Boolean() }), 201: Ok({ party: Party, created: Type.Boolean() }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const result = await findOrCreateParty(ctx.database, {
        at: s.clock.now(),
        actor: ctx.actor,
        businessId: businessOf(req).id,
        body: req.body as PartyFindOrCreateBody,
      });
      return reply.status(result.created ? 201 : 200).send({ ok: true, ...result });
    },
  );
}

function registerPartyUpdateRoute(api: FastifyInstance, s: Services): void {
  api.patch(
    '/businesses/:bid/parties/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'updateParty',
        summary: 'Update a party',
        description: 'Changes only the fields given. Documents already issued keep the details they were issued with.',
        params: BidIdParams,
        body: PartyPatch,
        response: { 200: Ok({ party: Party }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const { id } = req.params as { id: string };
      const party = await patchParty(ctx.database, {
        at: s.clock.now(),
        actor: ctx.actor,
        businessId: businessOf(req).id,
        id,
        body: req.body as PartyPatchBody,
      });
      return { ok: true as const, party };
    },
  );
}
