import { sql } from 'drizzle-orm';
import type { Executor, Tx } from '../platform/db/engine.ts';
import { iso, isoOrNull, query, queryOne } from '../platform/db/sql.ts';
import { limitReached, notFound } from '../platform/errors.ts';
import { afterCursor, cursorAtSql, decodeCursor, pageOf } from '../platform/http/cursor.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { newId, randomToken } from '../platform/ids.ts';
import { getOwnedBusiness } from '../businesses/service.ts';
import type { WebhookCreateBody, WebhookPatchBody, WebhookView } from './schemas.ts';

/** Endpoints one account may hold in one mode. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;

export function toWebhook(r: Record<string, unknown>): WebhookView {
  return {
    id: String(r.id),
    url: String(r.url),
    events: (r.events as WebhookView['events'] | null) ?? [],
    businessId: (r.business_id as string | null) ?? null,
    active: Boolean(r.active),
    disabledAt: isoOrNull(r.disabled_at),
    consecutiveFailures: Number(r.consecutive_failures),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

/** Duplicates removed, order kept. */
const uniqueEvents = (events: string[] | undefined) => [...new Set(events ?? [])];

export async function getWebhook(ex: Executor, accountId: string, id: string, forUpdate = false): Promise<WebhookView & { secret: string }> {
  const r = await queryOne<Record<string, unknown>>(
    ex,
    forUpdate
      ? sql`SELECT * FROM webhook_endpoints WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`
      : sql`SELECT * FROM webhook_endpoints WHERE id = ${id} AND account_id = ${accountId}`,
  );
  if (!r) throw notFound('webhook endpoint');
  return { ...toWebhook(r), secret: String(r.secret) };
}

/** One page of the account's endpoints, newest first in the order (created_at, id); `cursor` is the previous page's nextCursor. */
export async function listWebhooks(ex: Executor, accountId: string, q: { take: number; cursor?: string }): Promise<{ webhooks: WebhookView[]; nextCursor: string | null }> {
  const after = q.cursor ? sql` AND ${afterCursor(decodeCursor('webhooks', q.cursor))}` : sql``;
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT *, ${cursorAtSql()} AS cursor_at FROM webhook_endpoints WHERE account_id = ${accountId}${after}
        ORDER BY created_at DESC, id DESC LIMIT ${q.take + 1}`,
  );
  const { page, nextCursor } = pageOf('webhooks', rows, q.take, (r) => ({ createdAt: String(r.cursor_at), id: String(r.id) }));
  return { webhooks: page.map(toWebhook), nextCursor };
}

/** Creates an endpoint (URL already checked by the caller, outside the transaction). */
export async function createWebhook(
  tx: Tx,
  at: Date,
  actor: Actor & { accountId: string },
  body: WebhookCreateBody,
): Promise<WebhookView & { secret: string }> {
  const businessId = body.businessId ?? null;
  // Another account's business answers 404, like every business path.
  if (businessId) await getOwnedBusiness(tx, actor.accountId, businessId);
  const count = await queryOne<{ n: number }>(
    tx,
    sql`SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = ${actor.accountId}`,
  );
  if ((count?.n ?? 0) >= MAX_ENDPOINTS_PER_ACCOUNT) {
    throw limitReached(`an account holds at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints per mode; delete one first`);
  }
  const secret = `whsec_${randomToken(32)}`;
  const now = at.toISOString();
  const row = await queryOne<Record<string, unknown>>(
    tx,
    sql`INSERT INTO webhook_endpoints(id, account_id, business_id, url, events, secret, active, created_at, updated_at)
        VALUES (${newId('we', at.getTime())}, ${actor.accountId}, ${businessId}, ${body.url}, ${sqlTextArray(uniqueEvents(body.events))},
                ${secret}, true, ${now}, ${now})
        RETURNING *`,
  );
  const webhook = toWebhook(row!);
  await appendAudit(tx, at, actor, { businessId, action: 'webhook.create', entityType: 'webhook_endpoint', entityId: webhook.id, after: webhook });
  return { ...webhook, secret };
}

/** PATCH: `url`, `events`, `active` (true re-arms: clears disabledAt and the failure count). */
export async function patchWebhook(
  tx: Tx,
  at: Date,
  actor: Actor & { accountId: string },
  id: string,
  body: WebhookPatchBody,
): Promise<WebhookView> {
  const { secret: _secret, ...before } = await getWebhook(tx, actor.accountId, id, true);
  const url = body.url ?? before.url;
  const events = body.events === undefined ? before.events : uniqueEvents(body.events);
  const now = at.toISOString();
  let active = before.active;
  let disabledAt = before.disabledAt;
  let failures = before.consecutiveFailures;
  if (body.active === true && !before.active) {
    active = true;
    disabledAt = null;
    failures = 0;
  } else if (body.active === false && before.active) {
    active = false;
    disabledAt = now;
  }
  const row = await queryOne<Record<string, unknown>>(
    tx,
    sql`UPDATE webhook_endpoints SET url = ${url}, events = ${sqlTextArray(events)}, active = ${active}, disabled_at = ${disabledAt},
               consecutive_failures = ${failures}, updated_at = ${now}
        WHERE id = ${id} RETURNING *`,
  );
  const after = toWebhook(row!);
  await appendAudit(tx, at, actor, { businessId: before.businessId, action: 'webhook.update', entityType: 'webhook_endpoint', entityId: id, before, after });
  return after;
}

/** Deletes the endpoint and its delivery log; nothing more is sent to it. */
export async function deleteWebhook(tx: Tx, at: Date, actor: Actor & { accountId: string }, id: string): Promise<void> {
  const { secret: _secret, ...before } = await getWebhook(tx, actor.accountId, id, true);
  await tx.execute(sql`DELETE FROM webhook_endpoints WHERE id = ${id}`);
  await appendAudit(tx, at, actor, { businessId: before.businessId, action: 'webhook.delete', entityType: 'webhook_endpoint', entityId: id, before });
}

/** A text[] parameter (an empty JS array must not expand to an empty `()` list). */
export const sqlTextArray = (values: string[]) => sql`${sql.param(values)}::text[]`;
