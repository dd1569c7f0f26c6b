import type { FastifyRequest } from 'fastify';
import type { Database, Mode } from '../db/engine.ts';
import type { Actor } from '../audit.ts';
import type { Scope } from '../catalog/scopes.ts';

/** An API key's mode: `live` keys reach the live database, `test` keys the sandbox. */
export const KEY_MODES = ['live', 'test'] as const;
export type KeyMode = (typeof KEY_MODES)[number];
export const modeOfKey = (m: KeyMode): Mode => (m === 'live' ? 'live' : 'sandbox');

export interface ApiKeyInfo {
  id: string;
  accountId: string;
  mode: KeyMode;
  prefix: string;
  scopes: Scope[];
}

/** The account's own monthly ceilings (overriding its plan's), read with the key. */
export interface AccountLimits {
  maxDocsPerMonth: number | null;
  maxExpensesPerMonth: number | null;
}

/** What every authenticated API request carries: which database answers and who is asking. */
export interface RequestContext {
  mode: Mode;
  database: Database;
  key: ApiKeyInfo;
  actor: Actor;
  /** Read in the same query as the key, so that checking a ceiling costs no round trip of its own. */
  accountLimits: AccountLimits;
}

/** Who sent a request whose key was found usable, set before the rate limit and scope checks (the request log records refusals too). */
export interface RequestCaller {
  accountId: string;
  mode: Mode;
  keyPrefix: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx?: RequestContext;
    caller?: RequestCaller;
  }
  interface FastifyContextConfig {
    /** The key scope the route needs. */
    scope?: Scope;
    /** Writes that stay open on a deactivated business (reactivate, exports, backups...). */
    allowWhenDeactivated?: boolean;
  }
}

export function ctxOf(req: FastifyRequest): RequestContext {
  if (!req.ctx) throw new Error('route reached without authentication');
  return req.ctx;
}
