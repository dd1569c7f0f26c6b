/**
 * Each business's grant at the tax authority (ita_connections) and the consent flows in progress
 * (ita_consent_requests). Tokens are written by the callback and by refreshes, in short
 * transactions; no HTTP happens inside one.
 */
import { sql } from 'drizzle-orm';
import type { Database, Executor, Mode } from '../platform/db/engine.ts';
import { iso, isoOrNull, queryOne } from '../platform/db/sql.ts';
import { randomToken } from '../platform/ids.ts';
import type { TokenSet } from './provider.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { itaConnections, itaConsentRequests } from './tables.ts';
import type { AllocationProviderKind, ConsentOutcomeKind } from './lists.ts';

export interface Connection {
  businessId: string;
  provider: AllocationProviderKind;
  accessToken: string;
  accessExpiresAt: string;
  refreshToken: string;
  refreshExpiresAt: string;
  scope: string | null;
  consentedOn: string | null;
  brokenAt: string | null;
  brokenReason: string | null;
  connectedAt: string;
  refreshedAt: string | null;
  expiryWarnedFor: string | null;
}

export const toConnection = (r: Record<string, unknown>): Connection => ({
  businessId: String(r.business_id),
  provider: r.provider as Connection['provider'],
  accessToken: String(r.access_token),
  accessExpiresAt: iso(r.access_expires_at),
  refreshToken: String(r.refresh_token),
  refreshExpiresAt: iso(r.refresh_expires_at),
  scope: (r.scope as string | null) ?? null,
  consentedOn: (r.consented_on as string | null) ?? null,
  brokenAt: isoOrNull(r.broken_at),
  brokenReason: (r.broken_reason as string | null) ?? null,
  connectedAt: iso(r.connected_at),
  refreshedAt: isoOrNull(r.refreshed_at),
  expiryWarnedFor: isoOrNull(r.expiry_warned_for),
});

export async function getConnection(ex: Executor, businessId: string): Promise<Connection | null> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT * FROM ita_connections WHERE business_id = ${businessId}`);
  return r ? toConnection(r) : null;
}

/** A new grant (the callback): replaces any earlier one of the business. */
export async function saveGrant(
  tx: Executor,
  { at, businessId, provider, tokens: t }: { at: Date; businessId: string; provider: Connection['provider']; tokens: TokenSet },
): Promise<Connection> {
  const r = await queryOne<Record<string, unknown>>(
    tx,
    sql`${insertInto(itaConnections, {
      businessId,
      provider,
      accessToken: t.accessToken,
      accessExpiresAt: t.accessExpiresAt,
      refreshToken: t.refreshToken,
      refreshExpiresAt: t.refreshExpiresAt,
      scope: t.scope,
      consentedOn: t.consentedOn,
      connectedAt: at,
      updatedAt: at,
    })}
        ON CONFLICT (business_id) DO UPDATE SET provider = EXCLUDED.provider, access_token = EXCLUDED.access_token,
          access_expires_at = EXCLUDED.access_expires_at, refresh_token = EXCLUDED.refresh_token,
          refresh_expires_at = EXCLUDED.refresh_expires_at, scope = EXCLUDED.scope, consented_on = EXCLUDED.consented_on,
          broken_at = NULL, broken_reason = NULL, connected_at = EXCLUDED.connected_at, refreshed_at = NULL,
          expiry_warned_for = NULL, updated_at = EXCLUDED.updated_at
        RETURNING *`,
  );
  return toConnection(r!);
}

/** A refreshed token pair. Only applies if the refresh token used is still the stored one. */
export async function saveRefreshed(
  ex: Executor,
  { at, businessId, usedRefreshToken, tokens: t }: { at: Date; businessId: string; usedRefreshToken: string; tokens: TokenSet },
): Promise<void> {
  await ex.execute(
    sql`UPDATE ita_connections SET access_token = ${t.accessToken}, access_expires_at = ${t.accessExpiresAt.toISOString()},
          refresh_token = ${t.refreshToken}, refresh_expires_at = ${t.refreshExpiresAt.toISOString()},
          scope = COALESCE(${t.scope}, scope), refreshed_at = ${at.toISOString()}, updated_at = ${at.toISOString()}
        WHERE business_id = ${businessId} AND refresh_token = ${usedRefreshToken}`,
  );
}

export async function markBroken(ex: Executor, at: Date, businessId: string, reason: string): Promise<void> {
  await ex.execute(
    sql`UPDATE ita_connections SET broken_at = ${at.toISOString()}, broken_reason = ${reason.slice(0, 300)}, updated_at = ${at.toISOString()}
        WHERE business_id = ${businessId} AND broken_at IS NULL`,
  );
}

export async function deleteConnection(ex: Executor, businessId: string): Promise<boolean> {
  const r = await queryOne(ex, sql`DELETE FROM ita_connections WHERE business_id = ${businessId} RETURNING business_id`);
  return r !== undefined;
}

export type ConnectionState = 'not_connected' | 'connected' | 'expiring' | 'expired';

/** What GET …/allocation/connection shows. */
export function connectionState(c: Connection | null, now: Date, warningMs: number): ConnectionState {
  if (!c) return 'not_connected';
  const expiresAt = new Date(c.refreshExpiresAt).getTime();
  if (c.brokenAt || expiresAt <= now.getTime()) return 'expired';
  if (expiresAt - now.getTime() <= warningMs) return 'expiring';
  return 'connected';
}

// ---- consent requests ----------------------------------------------------------------------

export const CONSENT_TTL_MS = 30 * 60_000;

/** The state parameter names the database it belongs to (the callback carries no API key). */
export function newState(mode: Mode): string {
  return `${mode === 'live' ? 'l' : 's'}_${randomToken(24)}`;
}

export function modeOfState(state: string): Mode | null {
  if (state.startsWith('l_')) return 'live';
  if (state.startsWith('s_')) return 'sandbox';
  return null;
}

export interface ConsentRequest {
  state: string;
  businessId: string;
  returnUrl: string | null;
  expiresAt: string;
  completedAt: string | null;
}

export async function createConsentRequest(
  tx: Executor,
  at: Date,
  r: { state: string; businessId: string; keyId: string | null; accountId: string | null; returnUrl: string | null },
): Promise<ConsentRequest> {
  const expiresAt = new Date(at.getTime() + CONSENT_TTL_MS);
  await tx.execute(
    insertInto(itaConsentRequests, {
      state: r.state,
      businessId: r.businessId,
      keyId: r.keyId,
      accountId: r.accountId,
      returnUrl: r.returnUrl,
      createdAt: at,
      expiresAt,
    }),
  );
  return { state: r.state, businessId: r.businessId, returnUrl: r.returnUrl, expiresAt: expiresAt.toISOString(), completedAt: null };
}

/** Claims a consent request once: answers it when open and unexpired, else null. */
export async function claimConsentRequest(database: Database, at: Date, state: string, outcome: ConsentOutcomeKind): Promise<ConsentRequest | null> {
  const r = await queryOne<Record<string, unknown>>(
    database.db,
    sql`UPDATE ita_consent_requests SET completed_at = ${at.toISOString()}, outcome = ${outcome}
        WHERE state = ${state} AND completed_at IS NULL AND expires_at > ${at.toISOString()}
        RETURNING *`,
  );
  if (!r) return null;
  return {
    state: String(r.state),
    businessId: String(r.business_id),
    returnUrl: (r.return_url as string | null) ?? null,
    expiresAt: iso(r.expires_at),
    completedAt: isoOrNull(r.completed_at),
  };
}

export async function setConsentOutcome(ex: Executor, state: string, outcome: ConsentOutcomeKind): Promise<void> {
  await ex.execute(sql`UPDATE ita_consent_requests SET outcome = ${outcome} WHERE state = ${state}`);
}
