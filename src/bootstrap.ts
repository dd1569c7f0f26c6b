import { sql } from 'drizzle-orm';
import { queryOne } from './platform/db/sql.ts';
import type { Services } from './platform/http/services.ts';
import { createAccount, mintKey } from './accounts/index.ts';

/**
 * First start of an empty database outside production: a local account and one sandbox key,
 * returned so the caller prints the key once. Production never gets a key this way.
 */
export async function bootstrapLocalAccount(s: Services): Promise<{ accountId: string; key: string } | null> {
  if (s.config.env === 'production') return null;
  const control = s.databases.live.db;
  const any = await queryOne(control, sql`SELECT 1 FROM accounts LIMIT 1`);
  if (any) return null;
  const now = s.clock.now();
  const account = await createAccount(control, now, { name: 'Local development', approvalStatus: 'approved' });
  const { secret } = await mintKey(control, now, { accountId: account.id, mode: 'test', label: 'first-start sandbox key' });
  return { accountId: account.id, key: secret };
}
