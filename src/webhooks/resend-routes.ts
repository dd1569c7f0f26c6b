import type { Api } from '../platform/http/api.ts';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, errors, IdParams, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { Delivery, DeliveryParams, WebhookReplay } from './schemas.ts';
import type { WebhookDispatcher } from './dispatcher.ts';
import { replayAccountWebhook, retryAccountDelivery } from './account-actions.ts';

const tags = ['webhooks'];
const config = { scope: 'businesses' as const };

/** Resend one delivery now, and replay many to an endpoint; another account's (or mode's) endpoint is 404. */
export function registerResendRoutes(api: Api, s: Services, dispatcher: WebhookDispatcher): void {
  api.post(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    {
      config,
      schema: {
        tags,
        operationId: 'retryWebhookDelivery',
        summary: 'Send one delivery again now, under the same delivery id (receivers dedupe on it), whatever its status',
        description:
          'One attempt, logged with the others. A 2xx makes the delivery `delivered`; a failure leaves its status and retry schedule as they were. ' +
          'Works on an inactive endpoint too; does not count toward auto-disable. 409 `conflict` while a sender holds the delivery.',
        params: DeliveryParams,
        response: { 200: Ok({ delivered: Type.Boolean(), delivery: Delivery }), ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const { id, deliveryId } = req.params;
      const target = { mode: ctx.mode, accountId: ctx.key.accountId, webhookId: id, deliveryId };
      return { ok: true as const, ...(await retryAccountDelivery(s, target, dispatcher)) };
    },
  );

  api.post(
    '/webhooks/:id/replay',
    {
      config,
      schema: {
        tags,
        operationId: 'replayWebhook',
        summary: 'Replay to this endpoint every delivery it failed (`failed: true`), or every event since a time (`since`, optionally `events`)',
        description:
          'Each event keeps its delivery id, so receivers dedupe; events the endpoint never had a delivery for get a new one. The dispatcher sends them ' +
          'within its poll interval (an inactive endpoint’s wait until it is re-armed). At most 10,000 new deliveries a call: `complete: false` asks for another call.',
        params: IdParams,
        body: WebhookReplay,
        response: {
          200: Ok({
            replayed: Type.Integer({ description: 'Deliveries made due now.' }),
            created: Type.Integer({ description: 'Of them, new deliveries for events the endpoint had none for.' }),
            complete: Type.Boolean({ description: 'False when the call stopped at 10,000 new deliveries: call again with the same body.' }),
          }),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const target = { mode: ctx.mode, accountId: ctx.key.accountId, webhookId: req.params.id };
      return { ok: true as const, ...(await replayAccountWebhook(s, target, req.body)) };
    },
  );
}
