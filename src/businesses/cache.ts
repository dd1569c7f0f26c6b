import type { Mode } from '../platform/db/engine.ts';
import type { InvalidationChannel } from '../platform/db/invalidation.ts';
import { notFound } from '../platform/errors.ts';
import type { Services } from '../platform/http/services.ts';
import { RecordCache } from '../platform/record-cache.ts';
import { findOwnedBusiness, type BusinessRecord } from './records.ts';

declare module '../platform/http/services.ts' {
  interface Services {
    /** Businesses by id, per mode's database, kept current by that database's invalidation channel. */
    businessCaches: Record<Mode, RecordCache<BusinessRecord>>;
  }
}

const BUSINESSES_KEPT = 20_000;

export function createBusinessCaches(channels: Record<Mode, InvalidationChannel>): Record<Mode, RecordCache<BusinessRecord>> {
  const caches = {
    live: new RecordCache<BusinessRecord>(channels.live, BUSINESSES_KEPT),
    sandbox: new RecordCache<BusinessRecord>(channels.sandbox, BUSINESSES_KEPT),
  };
  channels.live.subscribe('businesses', caches.live);
  channels.sandbox.subscribe('businesses', caches.sandbox);
  return caches;
}

/**
 * The account's business, from the cache when it holds it. A cached business of another account is
 * "not found", as the database's answer would be; only the owner's read fills the cache.
 */
export async function cachedOwnedBusiness(s: Services, mode: Mode, accountId: string, id: string): Promise<BusinessRecord> {
  const business = await s.businessCaches[mode].get(id, () => findOwnedBusiness(s.databases[mode].db, accountId, id));
  if (!business || business.accountId !== accountId) throw notFound('business');
  return business;
}

/**
 * A write of a business answers once every serving process's cache has heard of it (its notification
 * is sent at commit; InvalidationChannel.fence waits for each listener's acknowledgement), so the
 * caller's next request, to this process or another, never meets the record it just changed.
 */
export async function seenByCache<T>(s: Services, mode: Mode, write: Promise<T>): Promise<T> {
  const result = await write;
  await s.invalidation[mode].fence();
  return result;
}
