// An account's endpoint, read and acted on by its id: what the API's resend and replay routes and the console share.
import { sql } from 'drizzle-orm';
import type { Executor, Mode } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import type { Services } from '../platform/http/services.ts';
import { listDeliveries } from './deliveries.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { getWebhook } from './endpoints.ts';
import { replayToEndpoint, type ReplayResult } from './replay.ts';
import { resendDelivery } from './resend.ts';
import type { DeliveryView, WebhookReplayBody, WebhookView } from './schemas.ts';
import { webhookDeliveries } from './tables.ts';

/** A delivery with the first REQUEST_EXCERPT characters of the envelope it sends (the console shows the request). */
export type DeliveryWithRequest = DeliveryView & { request: string };

export const REQUEST_EXCERPT = 2000;

/** The account's endpoint (never its secret) and one page of its deliveries with their requests, newest first; another account's is 404. */
export async function endpointWithDeliveries(
  ex: Executor,
  accountId: string,
  id: string,
  page: { cursor?: string; take: number },
): Promise<{ webhook: WebhookView; deliveries: DeliveryWithRequest[]; nextCursor: string | null }> {
  const { secret: _secret, ...webhook } = await getWebhook(ex, accountId, id);
  const { deliveries, nextCursor } = await listDeliveries(ex, webhook.id, page);
  const ids = deliveries.map((d) => d.id);
  const t = webhookDeliveries;
  const requests =
    ids.length === 0
      ? []
      : await query<{ id: string; request: string }>(
          ex,
          sql`SELECT ${t.id} AS id, left(${t.payload}, ${REQUEST_EXCERPT}) AS request FROM ${t}
              WHERE ${t.endpointId} = ${webhook.id} AND ${t.id} = ANY(${sql.param(ids)})`,
        );
  const requestOf = new Map(requests.map((r) => [r.id, r.request]));
  return { webhook, deliveries: deliveries.map((d) => ({ ...d, request: requestOf.get(d.id) ?? '' })), nextCursor };
}

/** Sends one delivery of the account's endpoint again now, under its id (resend.ts); another account's endpoint is 404. */
export async function retryAccountDelivery(
  s: Services,
  target: { mode: Mode; accountId: string; webhookId: string; deliveryId: string },
  dispatcher: WebhookDispatcher = new WebhookDispatcher(s),
): Promise<{ delivered: boolean; delivery: DeliveryView }> {
  const endpoint = await getWebhook(s.databases[target.mode].db, target.accountId, target.webhookId);
  return resendDelivery(s, dispatcher, { mode: target.mode, endpoint, deliveryId: target.deliveryId });
}

/** Replays to the account's endpoint (replay.ts): its failed deliveries, or every event since a time; another account's is 404. */
export async function replayAccountWebhook(
  s: Services,
  target: { mode: Mode; accountId: string; webhookId: string },
  body: WebhookReplayBody,
): Promise<ReplayResult> {
  const database = s.databases[target.mode];
  const { secret: _secret, ...endpoint } = await getWebhook(database.db, target.accountId, target.webhookId);
  return replayToEndpoint(database, endpoint, body, s.clock.now());
}
