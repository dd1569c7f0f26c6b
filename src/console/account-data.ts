/** What the console's account pages read and change, one call per page or form. */
import { getAccount, listKeys, revokeKey, usageByDay } from '../accounts/index.ts';
import { listOwnedBusinesses } from '../businesses/index.ts';
import { appendAudit } from '../platform/audit.ts';
import type { Database } from '../platform/db/engine.ts';
import type { Services } from '../platform/http/services.ts';
import type { Mode } from '../platform/db/mode.ts';

/** The account and its keys, for the keys page. */
export async function accountWithKeys(control: Database, accountId: string) {
  const [account, keys] = await Promise.all([getAccount(control.db, accountId), listKeys(control.db, accountId)]);
  return { account, keys };
}

/**
 * Revokes one of the account's keys from the console (audited). The answer waits until every serving
 * process has heard the revocation's notification (InvalidationChannel.fence: this process's own
 * LISTEN connection, and each other's acknowledgement). NOTIFY reaches every listener at commit, but
 * each hears it when its backend and process are next scheduled; without the wait, the caller's next
 * request could reach a process a few milliseconds behind and be served by a key it believes revoked.
 * With it, "revoked" means refused everywhere from the answer on (test/foundation/cache-processes.test.ts).
 */
export async function revokeThroughConsole(s: Services, keyId: string, accountId: string) {
  const now = s.clock.now();
  const revoked = await s.databases.live.db.transaction(async (tx) => {
    const k = await revokeKey(tx, now, keyId, accountId);
    await appendAudit(
      tx,
      { at: now, actor: { accountId, keyId: null } },
      {
        action: 'key.revoked',
        entityType: 'api_key',
        entityId: k.id,
        after: { prefix: k.prefix, revokedAt: k.revokedAt, via: 'console' },
      },
    );
    return k;
  });
  await s.invalidation.live.fence();
  return revoked;
}

/** The usage page: the account's name, its counts per day in a mode, and its businesses in both modes. */
export async function usageView(s: Services, accountId: string, mode: Mode, days: number) {
  const account = await getAccount(s.databases.live.db, accountId);
  const usage = await usageByDay(s, mode, accountId, days);
  const live = await listOwnedBusinesses(s.databases.live.db, accountId);
  const sandbox = await listOwnedBusinesses(s.databases.sandbox.db, accountId);
  return { accountName: account.name, mode, days, usage, businesses: { live, sandbox } };
}
