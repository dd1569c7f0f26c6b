import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden } from '../platform/errors.ts';
import { ctxOf } from '../platform/http/context.ts';
import { isJsonObject } from '../platform/http/input.ts';
import type { Services } from '../platform/http/services.ts';
import { cachedOwnedBusiness } from './cache.ts';
import type { BusinessRecord } from './records.ts';

declare module 'fastify' {
  interface FastifyRequest {
    business?: BusinessRecord;
  }
}

/**
 * Every route with a `:bid` param: the business must belong to the key's account (else 404, so
 * existence is not revealed), and a deactivated business refuses writes with 403 unless the route
 * says it stays open (reactivate, exports, backups). Runs before body validation, so another
 * tenant's business is "not found" whatever the body says. The business comes from the cache (no round
 * trip once read); a change to it reaches the cache through its notification (src/businesses/cache.ts).
 */
export function installBusinessGuard(api: FastifyInstance, s: Services): void {
  api.addHook('preValidation', async (req) => {
    // Before validation: the router's params, not yet checked by the route's schema.
    const bid = isJsonObject(req.params) ? req.params.bid : undefined;
    if (typeof bid !== 'string') return;
    const ctx = ctxOf(req);
    const business = await cachedOwnedBusiness(s, ctx.mode, ctx.key.accountId, bid);
    const isWrite = req.method !== 'GET' && req.method !== 'HEAD';
    if (isWrite && business.deactivatedAt && !req.routeOptions.config?.allowWhenDeactivated) {
      throw forbidden('the business is deactivated: writes are refused until it is reactivated');
    }
    req.business = business;
  });
}

export function businessOf(req: FastifyRequest): BusinessRecord {
  if (!req.business) throw new Error('route has no :bid');
  return req.business;
}
