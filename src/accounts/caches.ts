import type { Database } from '../platform/db/engine.ts';
import type { InvalidationChannel } from '../platform/db/invalidation.ts';
import type { AccountLimits } from '../platform/http/context.ts';
import type { Services } from '../platform/http/services.ts';
import type { Logger } from '../platform/logger.ts';
import { RecordCache } from '../platform/record-cache.ts';
import { getAccount } from './accounts.ts';
import { KeyCache } from './key-cache.ts';
import { listPlans, type Plan } from './plans.ts';

declare module '../platform/http/services.ts' {
  interface Services {
    /** The control plane's records in memory, kept current by the live database's invalidation channel. */
    accountCaches: AccountCaches;
  }
}

export interface AccountCaches {
  keys: KeyCache;
  limits: RecordCache<AccountLimits>;
  /** One entry: every plan (a handful of rows), dropped when any plan changes. */
  plans: RecordCache<Plan[]>;
}

const ACCOUNTS_KEPT = 100_000;

export function createAccountCaches(control: Database, channel: InvalidationChannel, logger: Logger): AccountCaches {
  const caches: AccountCaches = {
    keys: new KeyCache(control, channel, logger),
    limits: new RecordCache(channel, ACCOUNTS_KEPT),
    plans: new RecordCache(channel, 1),
  };
  channel.subscribe('api_keys', caches.keys);
  channel.subscribe('accounts', caches.limits);
  channel.subscribe('plans', { invalidate: () => caches.plans.flush(), flush: () => caches.plans.flush() });
  return caches;
}

/** The account's own monthly ceilings (overriding its plan's). */
export async function accountLimitsOf(s: Services, accountId: string): Promise<AccountLimits> {
  const limits = await s.accountCaches.limits.get(accountId, async () => {
    const a = await getAccount(s.databases.live.db, accountId);
    return { maxDocsPerMonth: a.maxDocsPerMonth, maxExpensesPerMonth: a.maxExpensesPerMonth };
  });
  return limits!;
}

export async function plansOf(s: Services): Promise<Plan[]> {
  return (await s.accountCaches.plans.get('all', () => listPlans(s.databases.live.db)))!;
}
