/** What the console's account pages read and change, one call per page or form. */
import { getAccount, listKeys, revokeKey, usageByDay } from '../accounts/index.ts';
import { listOwnedBusinesses } from '../businesses/index.ts';
import { appendAudit } from '../platform/audit.ts';
import type { Database } from '../platform/db/engine.ts';
import type { Services } from '../platform/http/services.ts';

/** The account and its keys, for the keys page. */
export async function accountWithKeys(control: Database, accountId: string) {
  const [account, keys] = await Promise.all([getAccount(control.db, accountId), listKeys(control.db, accountId)]);
  return { account, keys };
}

/** Revokes one of the account's keys from the console (audited); answers the revoked key. */
export async function revokeThroughConsole(control: Database, now: Date, keyId: string, accountId: string) {
  return control.db.transaction(async (tx) => {
    const k = await revokeKey(tx, now, keyId, accountId);
    await appendAudit(
      tx,
      now,
      { accountId, keyId: null },
      {
        action: 'key.revoked',
        entityType: 'api_key',
        entityId: k.id,
        after: { prefix: k.prefix, revokedAt: k.revokedAt, via: 'console' },
      },
    );
    return k;
  });
}

/** The usage page: the account's name, its counts per day in a mode, and its businesses in both modes. */
export async function usageView(s: Services, accountId: string, mode: 'live' | 'sandbox', days: number) {
  const account = await getAccount(s.databases.live.db, accountId);
  const usage = await usageByDay(s, mode, accountId, days);
  const live = await listOwnedBusinesses(s.databases.live.db, accountId);
  const sandbox = await listOwnedBusinesses(s.databases.sandbox.db, accountId);
  return { accountName: account.name, mode, days, usage, businesses: { live, sandbox } };
}
