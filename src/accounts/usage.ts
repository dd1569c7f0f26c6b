import { sql } from 'drizzle-orm';
import { israelDate } from '../platform/clock.ts';
import { query } from '../platform/db/sql.ts';
import type { Services } from '../platform/http/services.ts';
import { subject, USAGE_METRICS } from '../platform/usage.ts';
import type { Mode } from '../platform/db/mode.ts';

// An account's usage per day, for `GET /v1/usage` and the console's usage page.

const METRIC_FIELDS: Record<(typeof USAGE_METRICS)[number], 'requests' | 'documentsIssued' | 'expenseRows' | 'ocrScans' | 'emailsSent'> = {
  requests: 'requests',
  documents_issued: 'documentsIssued',
  expense_rows: 'expenseRows',
  ocr_scans: 'ocrScans',
  emails_sent: 'emailsSent',
};

/** The Israel calendar days ending today, oldest first. */
export function lastDays(today: string, n: number): string[] {
  const out: string[] = [];
  const t = Date.parse(`${today}T00:00:00Z`);
  for (let i = n - 1; i >= 0; i--) out.push(new Date(t - i * 86_400_000).toISOString().slice(0, 10));
  return out;
}

export async function usageByDay(s: Services, mode: Mode, accountId: string, days: number) {
  await s.requestCounter.flush();
  const dates = lastDays(israelDate(s.clock.now()), days);
  const rows = await query<{ day: string; metric: string; count: number }>(
    s.databases[mode].db,
    // Documents issued are counted per business (src/documents/issue.ts): summed here with the
    // account's own rows (which also hold the counts written before that change).
    sql`SELECT day::text AS day, metric, count FROM usage_daily
        WHERE subject = ${subject.account(accountId)} AND day >= ${dates[0]} AND day <= ${dates[dates.length - 1]}
        UNION ALL
        SELECT u.day::text, u.metric, u.count FROM businesses b
          JOIN usage_daily u ON u.subject = 'biz:' || b.id AND u.metric = 'documents_issued'
         WHERE b.account_id = ${accountId} AND u.day >= ${dates[0]} AND u.day <= ${dates[dates.length - 1]}`,
  );
  const byDay = new Map(dates.map((d) => [d, { date: d, requests: 0, documentsIssued: 0, expenseRows: 0, ocrScans: 0, emailsSent: 0 }]));
  for (const r of rows) {
    const field = METRIC_FIELDS[r.metric as keyof typeof METRIC_FIELDS];
    const day = byDay.get(r.day);
    if (field && day) day[field] += Number(r.count);
  }
  return [...byDay.values()];
}
