/**
 * What every data page of the console shares: which database (mode) it reads, which of the account's
 * businesses, and its query checked by the API's own schema (so a filter the API refuses is refused
 * here with the API's words).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { getAccount, listKeys, type KeyRecord } from '../accounts/index.ts';
import { getOwnedBusiness, type BusinessRecord } from '../businesses/index.ts';
import type { Mode } from '../platform/db/engine.ts';
import { validationMessage, type AjvError } from '../platform/http/error-handler.ts';
import { isJsonObject } from '../platform/http/input.ts';
import type { Services } from '../platform/http/services.ts';
import { frameOf, signedIn } from './context.ts';
import type { Frame } from './views/auth-pages.ts';
import { keyState } from './views/keys-page.ts';

export const MODES: readonly Mode[] = ['live', 'sandbox'];

/** Rows on one page of every console list: pages follow the cursor, never an offset or a count. */
export const PAGE_ROWS = 50;

const modeOfKey = (k: KeyRecord): Mode => (k.mode === 'live' ? 'live' : 'sandbox');

/**
 * The mode the account works in: where its active keys are; with keys in both, the mode of the key used
 * (or else minted) last, live on a tie. No active key: the mode of any key it ever had, else sandbox,
 * where a new integrator starts.
 */
export function modeWithKeys(keys: KeyRecord[], nowMs: number): Mode {
  const active = keys.filter((k) => keyState(k, nowMs) === 'active');
  const pool = active.length > 0 ? active : keys;
  if (pool.length === 0) return 'sandbox';
  const latest = (mode: Mode) =>
    pool.filter((k) => modeOfKey(k) === mode).reduce((max, k) => Math.max(max, Date.parse(k.lastUsedAt ?? k.createdAt)), Number.NEGATIVE_INFINITY);
  return latest('live') >= latest('sandbox') ? 'live' : 'sandbox';
}

export async function accountMode(s: Services, accountId: string): Promise<Mode> {
  return modeWithKeys(await listKeys(s.databases.live.db, accountId), s.clock.now().getTime());
}

/** A signed-in data page: the account, its name for the header, and the page's frame; null after a redirect to sign-in. */
export async function dataPage(s: Services, req: FastifyRequest, reply: FastifyReply): Promise<{ accountId: string; user: { name: string }; f: Frame } | null> {
  const accountId = signedIn(req, reply);
  if (!accountId) return null;
  const account = await getAccount(s.databases.live.db, accountId);
  return { accountId, user: { name: account.name }, f: frameOf(req) };
}

/** One of the account's businesses in the mode's database; another account's (or none) is 404, as in the API. */
export function ownedBusiness(s: Services, mode: Mode, accountId: string, businessId: string): Promise<BusinessRecord> {
  return getOwnedBusiness(s.databases[mode].db, accountId, businessId);
}

/** preValidation of a GET form's page: a field left empty is a filter not given (the API would refuse `q=`). */
export async function dropEmptyFields(req: FastifyRequest): Promise<void> {
  const q = req.query;
  if (!isJsonObject(q)) return;
  for (const [k, v] of Object.entries(q)) if (v === '' || (Array.isArray(v) && v.every((x) => x === ''))) delete q[k];
}

/** The API's message for a query its schema refused (the route sets attachValidation), or null. */
export function queryProblem(req: FastifyRequest): string | null {
  const err = req.validationError as (Error & { validation?: AjvError[]; validationContext?: string }) | undefined;
  if (!err) return null;
  return err.validation ? validationMessage(err.validationContext, err.validation) : err.message;
}
