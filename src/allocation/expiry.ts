/**
 * The event before a business's grant at the tax authority expires: `allocation.connection_expiring`
 * once per expiry date, when the refresh token has less than ITA_EXPIRY_WARNING_HOURS left (or has
 * already expired unnoticed). A new consent resets it. The worker checks both databases regularly;
 * tests call warnExpiringConnections directly.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/db/engine.ts';
import { iso, query, queryOne } from '../platform/db/sql.ts';
import { recordEvent } from '../platform/outbox.ts';
import { appendAudit } from '../platform/audit.ts';
import type { Services } from '../platform/http/services.ts';
import { errorSummary } from '../platform/logger.ts';
import type { Worker } from '../domain.ts';
import { runPeriodically } from '../platform/periodic.ts';

export async function warnExpiringConnections(s: Services, database: Database): Promise<number> {
  const now = s.clock.now();
  const horizon = new Date(now.getTime() + s.config.allocation.expiryWarningMs);
  const due = await query<{ business_id: string; refresh_expires_at: unknown }>(
    database.db,
    sql`SELECT business_id, refresh_expires_at FROM ita_connections
        WHERE broken_at IS NULL AND refresh_expires_at <= ${horizon.toISOString()}
          AND (expiry_warned_for IS NULL OR expiry_warned_for <> refresh_expires_at)
        ORDER BY refresh_expires_at LIMIT 500`,
  );
  let sent = 0;
  for (const c of due) {
    const expiresAt = iso(c.refresh_expires_at);
    const done = await database.db.transaction(async (tx) => {
      // Claim the warning for this expiry date: a second process (or a refresh in between) skips it.
      const claimed = await queryOne<{ account_id: string }>(
        tx,
        sql`UPDATE ita_connections c SET expiry_warned_for = c.refresh_expires_at
            FROM businesses b
            WHERE c.business_id = ${c.business_id} AND b.id = c.business_id AND c.refresh_expires_at = ${expiresAt}
              AND (c.expiry_warned_for IS NULL OR c.expiry_warned_for <> c.refresh_expires_at)
            RETURNING b.account_id`,
      );
      if (!claimed) return false;
      const expired = new Date(expiresAt).getTime() <= now.getTime();
      await appendAudit(
        tx,
        { at: now, actor: { accountId: null, keyId: null } },
        {
          businessId: c.business_id,
          action: 'allocation.connection_expiring',
          entityType: 'ita_connection',
          entityId: c.business_id,
          after: { expiresAt, expired },
        },
      );
      await recordEvent(tx, now, {
        event: 'allocation.connection_expiring',
        accountId: claimed.account_id,
        businessId: c.business_id,
        data: { businessId: c.business_id, expiresAt, expired },
      });
      return true;
    });
    if (done) sent++;
  }
  return sent;
}

/** Checks both databases every `everyMs` (default 10 minutes). */
export function startExpiryWorker(s: Services, everyMs = 600_000): Worker {
  const check = async () => {
    for (const mode of ['live', 'sandbox'] as const) {
      await warnExpiringConnections(s, s.databases[mode]).catch((err) => s.logger.warn({ err: errorSummary(err), mode }, 'allocation expiry check failed'));
    }
  };
  return runPeriodically(everyMs, check, { runNow: true });
}
