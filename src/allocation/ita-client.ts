/**
 * The real client of the ITA Invoices Approval API (israel-tax.md §4.4–4.6): OAuth2 authorization
 * code per business, refresh tokens refreshed shortly before the access token expires, and
 * `POST {api}/Invoices/v2/Approval` with the business's bearer token.
 */
import type { AllocationConfig } from '../platform/config.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/engine.ts';
import { approvalRequestBody, classifyApprovalAnswer, parseTokenResponse } from './ita-protocol.ts';
import {
  AllocationNotConnectedError,
  AllocationTransportError,
  type AllocationProvider,
  type ApprovalInput,
  type ApprovalResult,
  type ConsentProvider,
  type TokenSet,
} from './provider.ts';
import { getConnection, markBroken, saveRefreshed } from './connections.ts';
import { callJson } from '../platform/json-call.ts';

type ItaConfig = NonNullable<AllocationConfig['ita']>;

/** Refresh when the access token has less than this left (it lives ~10 minutes). */
export const REFRESH_MARGIN_MS = 60_000;

/** One refresh at a time per business in this process (refresh tokens may rotate). */
const refreshing = new Map<string, Promise<string>>();

export class ItaClient implements AllocationProvider, ConsentProvider {
  readonly kind = 'ita' as const;
  readonly needsConnection = true;

  constructor(
    private readonly cfg: ItaConfig,
    private readonly timeoutMs: number,
    private readonly clock: Clock,
    /** The database (live or sandbox) whose ita_connections hold the grants. */
    private readonly database: Database,
  ) {}

  authorizationUrl(state: string): string {
    const q = new URLSearchParams({ response_type: 'code', client_id: this.cfg.clientId, scope: this.cfg.scope, redirect_uri: this.cfg.redirectUri, state });
    return `${this.cfg.oauthBaseUrl}/longtimetoken/oauth2/authorize?${q.toString()}`;
  }

  exchangeCode(code: string): Promise<TokenSet> {
    return this.token({ grant_type: 'authorization_code', code, redirect_uri: this.cfg.redirectUri });
  }

  refresh(refreshToken: string): Promise<TokenSet> {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  async requestApproval(input: ApprovalInput): Promise<ApprovalResult> {
    const body = approvalRequestBody(input, this.cfg.softwareNumber);
    let token = await this.accessToken(input.businessId, false);
    for (let attempt = 0; ; attempt++) {
      const res = await this.send(`${this.cfg.apiBaseUrl}/Invoices/v2/Approval`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = classifyApprovalAnswer(res.status, res.json);
      if (answer.status !== 'unauthorized') return answer;
      // A 401 means the gateway no longer accepts the token: refresh once, then give up for now.
      if (attempt > 0) throw new AllocationTransportError('the tax authority refused the access token after a refresh (HTTP 401)', 'http_401');
      token = await this.accessToken(input.businessId, true);
    }
  }

  /** A usable access token of the business, refreshed when close to expiry (or when forced). */
  private async accessToken(businessId: string, force: boolean): Promise<string> {
    const c = await getConnection(this.database.db, businessId);
    const now = this.clock.now().getTime();
    if (!c || c.provider !== 'ita') throw new AllocationNotConnectedError();
    if (c.brokenAt)
      throw new AllocationNotConnectedError(`the tax authority grant of the business is no longer valid (${c.brokenReason ?? 'refused'}): connect again`);
    if (new Date(c.refreshExpiresAt).getTime() <= now)
      throw new AllocationNotConnectedError('the tax authority grant of the business has expired: connect again');
    if (!force && new Date(c.accessExpiresAt).getTime() - REFRESH_MARGIN_MS > now) return c.accessToken;
    const key = `${this.database.mode}:${businessId}`;
    const inFlight = refreshing.get(key);
    if (inFlight) return inFlight;
    const p = (async () => {
      try {
        const t = await this.refresh(c.refreshToken);
        await saveRefreshed(this.database.db, { at: this.clock.now(), businessId, usedRefreshToken: c.refreshToken, tokens: t });
        return t.accessToken;
      } catch (err) {
        if (err instanceof AllocationTransportError && err.code === 'invalid_grant') {
          // Another process may have just rotated the refresh token: then its access token is good.
          const latest = await getConnection(this.database.db, businessId);
          if (latest && !latest.brokenAt && latest.refreshToken !== c.refreshToken) return latest.accessToken;
          await markBroken(this.database.db, this.clock.now(), businessId, err.message);
          throw new AllocationNotConnectedError(`the tax authority refused the refresh token (${err.message}): connect again`);
        }
        throw err;
      }
    })().finally(() => refreshing.delete(key));
    refreshing.set(key, p);
    return p;
  }

  private async token(form: Record<string, string>): Promise<TokenSet> {
    const basic = Buffer.from(`${this.cfg.clientId}:${this.cfg.clientSecret}`).toString('base64');
    const res = await this.send(`${this.cfg.oauthBaseUrl}/longtimetoken/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ ...form, client_id: this.cfg.clientId, scope: this.cfg.scope }).toString(),
    });
    if (res.status === 200) return parseTokenResponse(res.json, this.clock.now());
    const err = (res.json ?? {}) as Record<string, unknown>;
    const code = typeof err.error === 'string' ? err.error : `http_${res.status}`;
    const text = typeof err.error_description === 'string' ? `${code}: ${err.error_description}` : code;
    // invalid_grant: the code or refresh token is dead; retrying cannot help (the caller decides).
    throw new AllocationTransportError(
      `the token endpoint refused: ${text}`,
      code === 'invalid_grant' || code === 'invalid_client' ? code : `http_${res.status}`,
    );
  }

  private send(url: string, init: RequestInit): Promise<{ status: number; json: unknown }> {
    return callJson(url, init, {
      timeoutMs: this.timeoutMs,
      service: 'the tax authority',
      fail: (message, kind) => new AllocationTransportError(message, kind),
    });
  }
}
