import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, errors, IdParams, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { IdempotencyKeyHeaders } from '../platform/http/openapi.ts';
import { NextCursor } from '../platform/http/cursor.ts';
import {
  DeliveriesQuery,
  Delivery,
  Webhook,
  WebhooksQuery,
  WebhookCreate,
  WebhookPatch,
  WebhookWithSecret,
  type WebhookCreateBody,
  type WebhookPatchBody,
} from './schemas.ts';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, patchWebhook } from './endpoints.ts';
import { listDeliveries } from './deliveries.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { closeWebhookSender, webhookSender } from './runtime.ts';
import { registerResendRoutes } from './resend-routes.ts';
import { loopbackHttpAllowed } from './ssrf.ts';
import type { Mode } from '../platform/db/engine.ts';

const tags = ['webhooks'];

/**
 * The sender's check of an endpoint URL (SSRF rules and DNS, outside any transaction; the service calls it
 * before writing, a problem is a 400 on body.url). The key's mode decides whether http://localhost may be one.
 */
const urlCheck = (s: Services, mode: Mode) => (url: string) => webhookSender(s).checkUrl(url, { loopbackHttp: loopbackHttpAllowed(s.config.env, mode) });

const config = { scope: 'businesses' as const };

export function registerWebhookRoutes(api: FastifyInstance, s: Services): void {
  // The process's sender (its connection pool) closes with the app.
  api.addHook('onClose', async () => closeWebhookSender(s));
  registerEndpointListRoutes(api, s);
  registerEndpointRoutes(api, s);
  // One dispatcher object for the routes that send now (test, retry); the worker's loop is another.
  const dispatcher = new WebhookDispatcher(s);
  registerTestDeliveryRoute(api, dispatcher);
  registerDeliveryListRoute(api);
  registerResendRoutes(api, s, dispatcher);
}

/** Endpoints: register and list. */
function registerEndpointListRoutes(api: FastifyInstance, s: Services): void {
  api.post(
    '/webhooks',
    {
      config,
      schema: {
        tags,
        operationId: 'createWebhook',
        headers: IdempotencyKeyHeaders,
        summary: 'Register a webhook endpoint (the secret is shown only here)',
        body: WebhookCreate,
        response: { 201: Ok({ webhook: WebhookWithSecret }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const body = req.body as WebhookCreateBody;
      const webhook = await createWebhook(ctx.database, {
        at: s.clock.now(),
        actor: { ...ctx.actor, accountId: ctx.key.accountId },
        body,
        checkUrl: urlCheck(s, ctx.mode),
      });
      return reply.status(201).send({ ok: true, webhook });
    },
  );

  api.get(
    '/webhooks',
    {
      config,
      schema: {
        tags,
        operationId: 'listWebhooks',
        summary: 'List webhook endpoints, newest first; page with `cursor` (the `nextCursor` of the previous page)',
        querystring: WebhooksQuery,
        response: { 200: Ok({ webhooks: Type.Array(Webhook), nextCursor: NextCursor }, 'WebhookEndpointPage'), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const { take = 200, cursor } = req.query as { take?: number; cursor?: string };
      return { ok: true as const, ...(await listWebhooks(ctx.database.db, ctx.key.accountId, { take, cursor })) };
    },
  );
}

/** One endpoint: read, change, delete. */
function registerEndpointRoutes(api: FastifyInstance, s: Services): void {
  registerEndpointReadRoute(api);
  registerEndpointUpdateRoute(api, s);
  registerEndpointDeleteRoute(api, s);
}

function registerEndpointReadRoute(api: FastifyInstance): void {
  api.get(
    '/webhooks/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'getWebhook',
        summary: 'Read a webhook endpoint',
        params: IdParams,
        response: { 200: Ok({ webhook: Webhook }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const { secret: _secret, ...webhook } = await getWebhook(ctx.database.db, ctx.key.accountId, (req.params as { id: string }).id);
      return { ok: true as const, webhook };
    },
  );
}

function registerEndpointUpdateRoute(api: FastifyInstance, s: Services): void {
  api.patch(
    '/webhooks/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'updateWebhook',
        summary: 'Change url, events or active (`active: true` re-arms an auto-disabled endpoint)',
        params: IdParams,
        body: WebhookPatch,
        response: { 200: Ok({ webhook: Webhook }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const body = req.body as WebhookPatchBody;
      const { id } = req.params as { id: string };
      const webhook = await patchWebhook(ctx.database, {
        at: s.clock.now(),
        actor: { ...ctx.actor, accountId: ctx.key.accountId },
        id,
        body,
        checkUrl: urlCheck(s, ctx.mode),
      });
      return { ok: true as const, webhook };
    },
  );
}

function registerEndpointDeleteRoute(api: FastifyInstance, s: Services): void {
  api.delete(
    '/webhooks/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint and its delivery log',
        params: IdParams,
        response: { 200: Ok({}), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      await ctx.database.db.transaction((tx) =>
        deleteWebhook(tx, s.clock.now(), { ...ctx.actor, accountId: ctx.key.accountId }, (req.params as { id: string }).id),
      );
      return { ok: true as const };
    },
  );
}

function registerTestDeliveryRoute(api: FastifyInstance, dispatcher: WebhookDispatcher): void {
  api.post(
    '/webhooks/:id/test',
    {
      config,
      schema: {
        tags,
        operationId: 'testWebhook',
        summary: 'Deliver a synthetic webhook.test now, whatever the event filter',
        params: IdParams,
        response: { 200: Ok({ delivered: Type.Boolean(), delivery: Delivery }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const endpoint = await getWebhook(ctx.database.db, ctx.key.accountId, (req.params as { id: string }).id);
      const result = await dispatcher.sendTest(ctx.mode, endpoint);
      return { ok: true as const, ...result };
    },
  );
}

function registerDeliveryListRoute(api: FastifyInstance): void {
  api.get(
    '/webhooks/:id/deliveries',
    {
      config,
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'Deliveries of an endpoint, newest first; page with `cursor` (the `nextCursor` of the previous page)',
        params: IdParams,
        querystring: DeliveriesQuery,
        response: {
          200: Ok(
            {
              deliveries: Type.Array(Delivery),
              next: Type.Union([Type.String(), Type.Null()], {
                description: 'The last delivery id of the page, for `before` (kept for compatibility); null on the last page.',
              }),
              nextCursor: NextCursor,
            },
            'DeliveryPage',
          ),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const endpoint = await getWebhook(ctx.database.db, ctx.key.accountId, (req.params as { id: string }).id);
      const q = req.query as { before?: string; cursor?: string; take?: number };
      return { ok: true as const, ...(await listDeliveries(ctx.database.db, endpoint.id, { before: q.before, cursor: q.cursor, take: q.take ?? 200 })) };
    },
  );
}
