/**
 * The dealer's grant at the tax authority, as the routes use it: start the consent flow, complete
 * it when the authority redirects back, show and forget the grant, and ask for a document's number.
 */
import type { BusinessRecord } from '../businesses/index.ts';
import { documentView, getDocumentRow, type DocumentView } from '../documents/index.ts';
import { appendAudit } from '../platform/audit.ts';
import type { Executor, Mode } from '../platform/db/engine.ts';
import { AppError, validation } from '../platform/errors.ts';
import type { RequestContext } from '../platform/http/context.ts';
import type { Services } from '../platform/http/services.ts';
import { errorSummary } from '../platform/logger.ts';
import {
  claimConsentRequest,
  connectionState,
  createConsentRequest,
  deleteConnection,
  getConnection,
  newState,
  saveGrant,
  setConsentOutcome,
  type Connection,
} from './connections.ts';
import { requestDraftAllocation } from './draft-request.ts';
import { providerFor, requireProvider } from './providers.ts';
import { retryFailedAllocation } from './retry.ts';
import type { ConsentOutcomeKind } from './lists.ts';

/** Opens a consent request (single-use state, audited); the dealer is sent to the authorization URL. */
export async function startConsent(s: Services, ctx: RequestContext, businessId: string, returnUrl: string | null) {
  const provider = requireProvider(s, ctx.mode);
  const now = s.clock.now();
  const state = newState(ctx.mode);
  const request = await ctx.database.db.transaction(async (tx) => {
    const r = await createConsentRequest(tx, now, { state, businessId, keyId: ctx.key.id, accountId: ctx.key.accountId, returnUrl });
    await appendAudit(
      tx,
      { at: now, actor: ctx.actor },
      {
        businessId,
        action: 'allocation.connect_started',
        entityType: 'ita_connection',
        entityId: businessId,
        after: { provider: provider.kind, expiresAt: r.expiresAt },
      },
    );
    return r;
  });
  return { authorizationUrl: provider.authorizationUrl(state), state, expiresAt: request.expiresAt };
}

export interface ConsentOutcome {
  outcome: ConsentOutcomeKind;
  businessId: string;
  returnUrl: string | null;
  message?: string;
}

const STALE_STATE = 'unknown, used or expired consent state: start again with POST /v1/businesses/{bid}/allocation/connect';

/** The authority's redirect: claims the state once, then saves the grant (audited) or records the refusal. */
export async function completeConsent(
  s: Services,
  mode: Mode,
  q: { state: string; code?: string; error?: string; error_description?: string },
): Promise<ConsentOutcome> {
  const database = s.databases[mode];
  const now = s.clock.now();
  if (q.error || !q.code) {
    const request = await claimConsentRequest(database, now, q.state, 'denied');
    if (!request) throw validation('query.state', STALE_STATE);
    const message = `the dealer did not grant access at the tax authority (${q.error ?? 'no code'}${q.error_description ? `: ${q.error_description}` : ''})`;
    return { outcome: 'denied', businessId: request.businessId, returnUrl: request.returnUrl, message };
  }
  const provider = providerFor(s, mode);
  if (!provider) throw new AppError('unconfigured', 'live mode has no tax authority client configured');
  const request = await claimConsentRequest(database, now, q.state, 'connected');
  if (!request) throw validation('query.state', STALE_STATE);
  const done = { businessId: request.businessId, returnUrl: request.returnUrl };
  let tokens;
  try {
    tokens = await provider.exchangeCode(q.code);
  } catch (err) {
    await setConsentOutcome(database.db, q.state, 'failed');
    s.logger.warn({ err: errorSummary(err), businessId: request.businessId }, 'tax authority code exchange failed');
    return { ...done, outcome: 'failed', message: `the tax authority did not accept the consent: ${errorSummary(err).message}` };
  }
  const at = s.clock.now();
  await database.db.transaction(async (tx) => {
    const c = await saveGrant(tx, { at, businessId: request.businessId, provider: provider.kind, tokens });
    await appendAudit(
      tx,
      { at, actor: { accountId: null, keyId: null } },
      {
        businessId: request.businessId,
        action: 'allocation.connected',
        entityType: 'ita_connection',
        entityId: request.businessId,
        after: { provider: c.provider, expiresAt: c.refreshExpiresAt, scope: c.scope },
      },
    );
  });
  return { ...done, outcome: 'connected' };
}

/** The business's grant as the API shows it. */
export async function connectionView(s: Services, mode: Mode, db: Executor, businessId: string) {
  let c: Connection | null = await getConnection(db, businessId);
  const p = providerFor(s, mode);
  // A grant made through the simulator (development) does not count once the real client answers.
  if (c && p && c.provider !== p.kind) c = null;
  return {
    status: connectionState(c, s.clock.now(), s.config.allocation.expiryWarningMs),
    provider: p?.kind ?? 'ita',
    required: p?.needsConnection ?? true,
    connectedAt: c?.connectedAt ?? null,
    expiresAt: c?.refreshExpiresAt ?? null,
    accessTokenExpiresAt: c?.accessExpiresAt ?? null,
    refreshedAt: c?.refreshedAt ?? null,
    problem: c?.brokenReason ?? null,
  };
}

/** Forgets the grant (audited when there was one). */
export async function disconnect(s: Services, ctx: RequestContext, businessId: string): Promise<boolean> {
  const now = s.clock.now();
  return ctx.database.db.transaction(async (tx) => {
    const gone = await deleteConnection(tx, businessId);
    if (gone)
      await appendAudit(
        tx,
        { at: now, actor: ctx.actor },
        { businessId, action: 'allocation.disconnected', entityType: 'ita_connection', entityId: businessId },
      );
    return gone;
  });
}

/** A draft's number now (200), or an issued document's failed request asked again in the background (202). */
export async function requestAllocation(
  s: Services,
  ctx: RequestContext,
  business: BusinessRecord,
  id: string,
): Promise<{ status: 200 | 202; document: DocumentView }> {
  const current = await getDocumentRow(ctx.database.db, business.id, id);
  if (current.status === 'issued') {
    const d = await retryFailedAllocation(s, ctx, business.id, id);
    return { status: 202, document: documentView(d) };
  }
  const d = await requestDraftAllocation(s, ctx, business, id);
  return { status: 200, document: documentView(d) };
}
