import { sql } from 'drizzle-orm';
import type { Database, Mode } from '../platform/db/engine.ts';
import { prepared, query, queryOne } from '../platform/db/sql.ts';
import type { Services } from '../platform/http/services.ts';
import { appendAudit } from '../platform/audit.ts';
import { newId } from '../platform/ids.ts';
import { markDispatched } from '../platform/outbox.ts';
import { errorSummary } from '../platform/logger.ts';
import { countWebhookAttempt } from '../platform/metrics.ts';
import type { Worker } from '../domain.ts';
import { signWebhook } from './signature.ts';
import { DISABLE_AFTER_FAILURES, isDelivered, nextAttemptAt } from './schedule.ts';
import type { AttemptOutcome, WebhookSender } from './sender.ts';
import { webhookSender } from './runtime.ts';
import { getDelivery } from './deliveries.ts';
import { loopbackHttpAllowed } from './ssrf.ts';
import { envelope, insertDeliveries, type EventForEndpoint } from './delivery-rows.ts';
import type { DeliveryView } from './schemas.ts';

type Row = Record<string, unknown>;

/** A delivery claimed for one attempt: everything needed to send it without the database. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  event: string;
  payload: string;
  attempt: number;
  url: string;
  secret: string;
}

/** Ends the claims of deliveries held by a dead sender, so that they are tried again now (at least once). */
export async function releaseDeliveryLeases(database: Database): Promise<number> {
  const rows = await query(
    database.db,
    sql`UPDATE webhook_deliveries SET locked_until = NULL WHERE locked_until IS NOT NULL AND status = 'pending' RETURNING id`,
  );
  return rows.length;
}

/**
 * Fans outbox events out into deliveries and sends the due ones. All state is in the mode's
 * database: events and deliveries are claimed with FOR UPDATE SKIP LOCKED in short transactions,
 * a claimed delivery carries a lease (locked_until), and no transaction is held across HTTP.
 * Several processes (or instances) may run it on one database; each attempt is claimed once.
 */
export class WebhookDispatcher {
  private readonly sender: WebhookSender;
  private readonly batch: number;
  private readonly concurrency: number;
  private readonly leaseMs: number;

  constructor(
    private readonly s: Services,
    opts: { sender?: WebhookSender; batch?: number; concurrency?: number; leaseMs?: number } = {},
  ) {
    this.sender = opts.sender ?? webhookSender(s);
    this.batch = opts.batch ?? 20;
    this.concurrency = opts.concurrency ?? 8;
    // Long enough for a whole claimed batch to be sent, with margin; a crashed sender's claim ends with it.
    this.leaseMs = opts.leaseMs ?? s.config.webhooks.timeoutMs * Math.ceil(this.batch / this.concurrency) + 60_000;
  }

  /** One pass over a mode: every undispatched event fanned out, every due delivery attempted once. */
  async runOnce(mode: Mode): Promise<{ fannedOut: number; attempted: number }> {
    const database = this.s.databases[mode];
    let fannedOut = 0;
    for (;;) {
      const n = await this.fanOut(database);
      fannedOut += n;
      if (n === 0) break;
    }
    let attempted = 0;
    for (;;) {
      const claimed = await this.claimDue(mode);
      if (claimed.length === 0) break;
      await this.sendAll(database, claimed);
      attempted += claimed.length;
    }
    return { fannedOut, attempted };
  }

  /**
   * Turns a batch of undispatched events into deliveries, set-based (a few statements per batch);
   * answers how many events it took.
   */
  async fanOut(database: Database, limit = 200): Promise<number> {
    const now = this.s.clock.now();
    const nowIso = now.toISOString();
    return database.db.transaction(async (tx) => {
      const locked = await query<{ id: string }>(
        tx,
        // Prepared: it runs after every burst of events, and its planning was most of its time.
        prepared('outbox_claim', sql`SELECT id FROM outbox_events WHERE dispatched_at IS NULL ORDER BY created_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED`),
      );
      if (locked.length === 0) return 0;
      const ids = locked.map((e) => String(e.id));
      const pairs = await query<EventForEndpoint>(
        tx,
        sql`SELECT o.id AS event_id, o.event, o.business_id, o.created_at, o.data, w.id AS endpoint_id
            FROM outbox_events o
            JOIN webhook_endpoints w ON w.account_id = o.account_id AND w.active
              AND (w.business_id IS NULL OR w.business_id = o.business_id)
              AND (cardinality(w.events) = 0 OR o.event = ANY(w.events))
            WHERE o.id IN ${ids}
            ORDER BY o.created_at, o.id, w.id`,
      );
      await insertDeliveries(tx, pairs, database.mode, now);
      await markDispatched(tx, ids, nowIso);
      return locked.length;
    });
  }

  /** Claims due deliveries of active endpoints for one attempt each (a lease, attempt number taken). */
  async claimDue(mode: Mode): Promise<ClaimedDelivery[]> {
    const now = this.s.clock.now().toISOString();
    const lease = new Date(this.s.clock.now().getTime() + this.leaseMs).toISOString();
    const rows = await this.s.databases[mode].db.transaction((tx) =>
      query<Row>(
        tx,
        sql`UPDATE webhook_deliveries d SET locked_until = ${lease}, attempt_count = d.attempt_count + 1
            FROM webhook_endpoints e
            WHERE e.id = d.endpoint_id AND d.id IN (
              SELECT d2.id FROM webhook_deliveries d2 JOIN webhook_endpoints e2 ON e2.id = d2.endpoint_id
              WHERE d2.status = 'pending' AND d2.next_attempt_at <= ${now} AND e2.active
                AND (d2.locked_until IS NULL OR d2.locked_until <= ${now})
              ORDER BY d2.next_attempt_at, d2.id LIMIT ${this.batch}
              FOR UPDATE OF d2 SKIP LOCKED)
            RETURNING d.id, d.endpoint_id, d.event, d.payload, d.attempt_count, e.url, e.secret`,
      ),
    );
    return rows.map((r) => ({
      id: String(r.id),
      endpointId: String(r.endpoint_id),
      event: String(r.event),
      payload: String(r.payload),
      attempt: Number(r.attempt_count),
      url: String(r.url),
      secret: String(r.secret),
    }));
  }

  private async sendAll(database: Database, claimed: ClaimedDelivery[]): Promise<void> {
    let next = 0;
    const lane = async () => {
      while (next < claimed.length) {
        const d = claimed[next++];
        try {
          const outcome = await this.attempt(database.mode, d);
          await this.record(database, d, outcome);
        } catch (err) {
          // The lease runs out and the delivery is tried again: nothing is lost.
          this.s.logger.error({ err: errorSummary(err), delivery: d.id }, 'webhook attempt could not be recorded');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, claimed.length) }, lane));
  }

  /** One signed POST of the stored envelope. */
  attempt(mode: Mode, d: { id: string; event: string; payload: string; url: string; secret: string }): Promise<AttemptOutcome> {
    const t = Math.floor(this.s.clock.now().getTime() / 1000);
    return this.sender.send(
      d.url,
      {
        'x-service-event': d.event,
        'x-service-delivery': d.id,
        'x-service-mode': mode,
        'x-service-signature': signWebhook(d.secret, d.payload, t),
      },
      d.payload,
      { loopbackHttp: loopbackHttpAllowed(this.s.config.env, mode) },
    );
  }

  /** Writes the attempt and moves the delivery on; a claim that lost its lease to another sender changes nothing more. */
  private async record(database: Database, d: ClaimedDelivery, o: AttemptOutcome): Promise<void> {
    const now = this.s.clock.now();
    const nowIso = now.toISOString();
    const ok = isDelivered(o.status) && o.error === null;
    const retryAt = ok ? null : nextAttemptAt(d.attempt, now);
    await database.db.transaction(async (tx) => {
      await tx.execute(
        // The endpoint (and its deliveries) may have been deleted while the request was in flight.
        sql`INSERT INTO webhook_attempts(delivery_id, n, at, response_status, duration_ms, error, response_body)
            SELECT ${d.id}, ${d.attempt}, ${nowIso}::timestamptz, ${o.status}::int, ${o.durationMs}::int, ${o.error}::text, ${o.body}::text
            WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = ${d.id})
            ON CONFLICT (delivery_id, n) DO NOTHING`,
      );
      const moved = await queryOne<Row>(
        tx,
        ok
          ? sql`UPDATE webhook_deliveries SET status = 'delivered', delivered_at = ${nowIso}, next_attempt_at = NULL, locked_until = NULL
                WHERE id = ${d.id} AND status = 'pending' AND attempt_count = ${d.attempt} RETURNING id`
          : retryAt
            ? sql`UPDATE webhook_deliveries SET next_attempt_at = ${retryAt.toISOString()}, locked_until = NULL
                  WHERE id = ${d.id} AND status = 'pending' AND attempt_count = ${d.attempt} RETURNING id`
            : sql`UPDATE webhook_deliveries SET status = 'failed', failed_at = ${nowIso}, next_attempt_at = NULL, locked_until = NULL
                  WHERE id = ${d.id} AND status = 'pending' AND attempt_count = ${d.attempt} RETURNING id`,
      );
      if (!moved) return;
      if (ok) {
        await tx.execute(sql`UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = ${d.endpointId} AND consecutive_failures <> 0`);
        return;
      }
      const before = await queryOne<{ active: boolean }>(tx, sql`SELECT active FROM webhook_endpoints WHERE id = ${d.endpointId} FOR UPDATE`);
      const ep = await queryOne<Row>(
        tx,
        sql`UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1,
                   active = CASE WHEN consecutive_failures + 1 >= ${DISABLE_AFTER_FAILURES} THEN false ELSE active END,
                   disabled_at = CASE WHEN consecutive_failures + 1 >= ${DISABLE_AFTER_FAILURES} AND active THEN ${nowIso}::timestamptz ELSE disabled_at END,
                   updated_at = CASE WHEN consecutive_failures + 1 >= ${DISABLE_AFTER_FAILURES} AND active THEN ${nowIso}::timestamptz ELSE updated_at END
            WHERE id = ${d.endpointId}
            RETURNING account_id, business_id, active, consecutive_failures`,
      );
      // Audited once, by the attempt that switched it off (others of the same batch may fail after it).
      if (ep && before?.active && !ep.active) {
        await appendAudit(
          tx,
          { at: now, actor: { accountId: String(ep.account_id), keyId: null } },
          {
            businessId: (ep.business_id as string | null) ?? null,
            action: 'webhook.auto_disable',
            entityType: 'webhook_endpoint',
            entityId: d.endpointId,
            after: { active: false, disabledAt: nowIso, consecutiveFailures: Number(ep.consecutive_failures) },
          },
        );
        this.s.logger.warn({ endpoint: d.endpointId, failures: Number(ep.consecutive_failures) }, 'webhook endpoint disabled after consecutive failures');
      }
    });
    countWebhookAttempt(database.mode, ok ? 'delivered' : retryAt ? 'retry' : 'failed');
  }

  /**
   * `POST /webhooks/{id}/test`: a synthetic `webhook.test` sent at once, whatever the filter and
   * whether or not the endpoint is active. One attempt, no retries, and it does not count toward
   * auto-disable (it is a probe, not traffic).
   */
  async sendTest(
    mode: Mode,
    endpoint: { id: string; url: string; secret: string; businessId: string | null },
  ): Promise<{ delivered: boolean; delivery: DeliveryView }> {
    const database = this.s.databases[mode];
    const created = this.s.clock.now();
    const id = newId('del', created.getTime());
    const payload = envelope({
      id,
      event: 'webhook.test',
      mode,
      businessId: endpoint.businessId,
      createdAt: created.toISOString(),
      data: { webhookId: endpoint.id, message: 'A test delivery from pinkas.' },
    });
    const outcome = await this.attempt(mode, { id, event: 'webhook.test', payload, url: endpoint.url, secret: endpoint.secret });
    const delivered = isDelivered(outcome.status) && outcome.error === null;
    const at = this.s.clock.now().toISOString();
    await database.db.transaction(async (tx) => {
      await tx.execute(
        sql`INSERT INTO webhook_deliveries(id, endpoint_id, event_id, event, business_id, payload, status, attempt_count, next_attempt_at,
                                           created_at, delivered_at, failed_at)
            VALUES (${id}, ${endpoint.id}, NULL, 'webhook.test', ${endpoint.businessId}, ${payload}, ${delivered ? 'delivered' : 'failed'}, 1, NULL,
                    ${created.toISOString()}, ${delivered ? at : null}, ${delivered ? null : at})`,
      );
      await tx.execute(
        sql`INSERT INTO webhook_attempts(delivery_id, n, at, response_status, duration_ms, error, response_body)
            VALUES (${id}, 1, ${at}, ${outcome.status}, ${outcome.durationMs}, ${outcome.error}, ${outcome.body})`,
      );
    });
    return { delivered, delivery: (await getDelivery(database.db, id))! };
  }

  /** Polls both databases every `pollMs` until stopped (the server process runs one). */
  start(pollMs = this.s.config.webhooks.pollMs): Worker {
    let timer: NodeJS.Timeout | null = null;
    let running: Promise<unknown> | null = null;
    let stopped = false;
    const tick = async () => {
      for (const mode of ['live', 'sandbox'] as const) {
        try {
          await this.runOnce(mode);
        } catch (err) {
          this.s.logger.error({ err: errorSummary(err), mode }, 'webhook dispatcher tick failed');
        }
      }
    };
    const loop = () => {
      running = tick().finally(() => {
        if (!stopped) timer = setTimeout(loop, pollMs);
      });
    };
    timer = setTimeout(loop, 0);
    return {
      stop: async () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        await running;
      },
    };
  }
}
