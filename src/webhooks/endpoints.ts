import { newestFirstPage } from '../platform/db/newest-first.ts';
import { sql } from 'drizzle-orm';
import type { Database, Executor, Tx } from '../platform/db/engine.ts';
import { insertInto, updateSet } from '../platform/db/insert-values.ts';
import { columnList, rowReader, type Readable } from '../platform/db/row-reader.ts';
import { iso, isoOrNull, query, queryOne } from '../platform/db/sql.ts';
import { limitReached, notFound, validation } from '../platform/errors.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { newId, randomToken } from '../platform/ids.ts';
import { getOwnedBusiness } from '../businesses/index.ts';
import type { WebhookCreateBody, WebhookPatchBody, WebhookView } from './schemas.ts';
import { webhookEndpoints, type WebhookEndpointRow } from './tables.ts';

/** Endpoints one account may hold in one mode. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;

const readEndpoint = rowReader(webhookEndpoints);

export function toWebhook(r: Readable<WebhookEndpointRow>): WebhookView {
  return {
    id: r.id,
    url: r.url,
    // Stored names were checked against the event list when written.
    events: r.events as WebhookView['events'],
    businessId: r.businessId,
    active: r.active,
    disabledAt: isoOrNull(r.disabledAt),
    consecutiveFailures: r.consecutiveFailures,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  };
}

/** Duplicates removed, order kept. */
const uniqueEvents = (events: string[] | undefined) => [...new Set(events ?? [])];

export async function getWebhook(ex: Executor, accountId: string, id: string, forUpdate = false): Promise<WebhookView & { secret: string }> {
  const t = webhookEndpoints;
  const raw = await queryOne(
    ex,
    sql`SELECT ${columnList(t)} FROM ${t} WHERE ${t.id} = ${id} AND ${t.accountId} = ${accountId}${forUpdate ? sql` FOR UPDATE` : sql``}`,
  );
  if (!raw) throw notFound('webhook endpoint');
  const r = readEndpoint(raw);
  return { ...toWebhook(r), secret: r.secret };
}

/** One page of the account's endpoints, newest first in the order (created_at, id); `cursor` is the previous page's nextCursor. */
export async function listWebhooks(
  ex: Executor,
  accountId: string,
  q: { take: number; cursor?: string },
): Promise<{ webhooks: WebhookView[]; nextCursor: string | null }> {
  const { rows, nextCursor } = await newestFirstPage(
    ex,
    { name: 'webhooks', table: webhookEndpoints },
    { where: [sql`${webhookEndpoints.accountId} = ${accountId}`], cursor: q.cursor, take: q.take },
  );
  return { webhooks: rows.map((r) => toWebhook(r)), nextCursor };
}

/** Creates an endpoint (URL already checked by the caller, outside the transaction). */
/** Answers what is wrong with an endpoint URL (not HTTPS, a private address, ...), or null. */
export type UrlCheck = (url: string) => Promise<string | null>;

async function refuseBadUrl(checkUrl: UrlCheck, url: string): Promise<void> {
  const problem = await checkUrl(url);
  if (problem) throw validation('body.url', problem);
}

export async function createWebhook(
  database: Database,
  { at, actor, body, checkUrl }: { at: Date; actor: Actor & { accountId: string }; body: WebhookCreateBody; checkUrl: UrlCheck },
): Promise<WebhookView & { secret: string }> {
  await refuseBadUrl(checkUrl, body.url);
  return database.db.transaction(async (tx) => {
    const businessId = body.businessId ?? null;
    // Another account's business answers 404, like every business path.
    if (businessId) await getOwnedBusiness(tx, actor.accountId, businessId);
    const t = webhookEndpoints;
    const held = await queryOne<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM ${t} WHERE ${t.accountId} = ${actor.accountId}`);
    if (held!.n >= MAX_ENDPOINTS_PER_ACCOUNT) {
      throw limitReached(`an account holds at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints per mode; delete one first`);
    }
    const secret = `whsec_${randomToken(32)}`;
    const inserted = insertInto(t, {
      id: newId('we', at.getTime()),
      accountId: actor.accountId,
      businessId,
      url: body.url,
      events: uniqueEvents(body.events),
      secret,
      active: true,
      createdAt: at,
      updatedAt: at,
    });
    const [row] = await query(tx, sql`${inserted} RETURNING ${columnList(t)}`);
    const webhook = toWebhook(readEndpoint(row));
    await appendAudit(tx, { at, actor }, { businessId, action: 'webhook.create', entityType: 'webhook_endpoint', entityId: webhook.id, after: webhook });
    return { ...webhook, secret };
  });
}

/** PATCH: `url`, `events`, `active` (true re-arms: clears disabledAt and the failure count). */
export async function patchWebhook(
  database: Database,
  { at, actor, id, body, checkUrl }: { at: Date; actor: Actor & { accountId: string }; id: string; body: WebhookPatchBody; checkUrl: UrlCheck },
): Promise<WebhookView> {
  if (body.url !== undefined) await refuseBadUrl(checkUrl, body.url);
  return database.db.transaction(async (tx) => {
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
    const t = webhookEndpoints;
    const changed = updateSet(t, {
      url,
      events,
      active,
      disabledAt: disabledAt === null ? null : new Date(disabledAt),
      consecutiveFailures: failures,
      updatedAt: at,
    });
    const [row] = await query(tx, sql`${changed} WHERE ${t.id} = ${id} RETURNING ${columnList(t)}`);
    const after = toWebhook(readEndpoint(row));
    await appendAudit(
      tx,
      { at, actor },
      { businessId: before.businessId, action: 'webhook.update', entityType: 'webhook_endpoint', entityId: id, before, after },
    );
    return after;
  });
}

/** Deletes the endpoint and its delivery log; nothing more is sent to it. */
export async function deleteWebhook(tx: Tx, at: Date, actor: Actor & { accountId: string }, id: string): Promise<void> {
  const { secret: _secret, ...before } = await getWebhook(tx, actor.accountId, id, true);
  await tx.execute(sql`DELETE FROM ${webhookEndpoints} WHERE ${webhookEndpoints.id} = ${id}`);
  await appendAudit(tx, { at, actor }, { businessId: before.businessId, action: 'webhook.delete', entityType: 'webhook_endpoint', entityId: id, before });
}
