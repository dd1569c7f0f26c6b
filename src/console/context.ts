import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../platform/http/services.ts';
import { randomToken } from '../platform/ids.ts';
import { pickLang, type Lang } from './i18n.ts';
import { csrfToken, csrfValid } from './secrets.ts';
import { findSession, SESSION_COOKIE, touchSession, type ConsoleSession } from './sessions.ts';
import { field } from './forms.ts';
import type { Frame } from './views/auth-pages.ts';

export const LANG_COOKIE = 'pinkas_lang';
/** Random value binding the CSRF token of forms shown before sign-in (signed double submit). */
export const PRE_COOKIE = 'pinkas_pre';

/** What every console request knows: language, session (if any), and its forms' CSRF token. */
export interface ConsoleState {
  lang: Lang;
  session: ConsoleSession | null;
  secret: Buffer;
  binding: string;
  csrf: string;
}

// Request-scoped, not a singleton: an entry lives exactly as long as its request object.
const states = new WeakMap<FastifyRequest, ConsoleState>();

export function stateOf(req: FastifyRequest): ConsoleState {
  const st = states.get(req);
  if (!st) throw new Error('console request without state');
  return st;
}

export function frameOf(req: FastifyRequest): Frame {
  const st = stateOf(req);
  return { lang: st.lang, csrf: st.csrf, path: req.url.split('#')[0] };
}

export function cookieOptions(s: Services, maxAgeSeconds?: number) {
  return {
    path: '/console',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: s.config.console.secureCookies,
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  };
}

/** onRequest: resolves the language, the session and the CSRF binding of this request. */
export async function loadState(s: Services, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const now = s.clock.now();
  const control = s.databases.live;
  const secret = await s.consoleSecrets.get(now);
  const lang = pickLang(req.cookies[LANG_COOKIE], req.headers['accept-language']);
  const session = await findSession(control.db, req.cookies[SESSION_COOKIE], now);
  if (session?.secondFactorAt) await touchSession(control.db, session, now);
  let binding: string;
  if (session) {
    binding = `ses:${session.id}`;
  } else {
    let pre = req.cookies[PRE_COOKIE];
    if (!pre || !/^[A-Za-z0-9_-]{22,64}$/.test(pre)) {
      pre = randomToken(24);
      reply.setCookie(PRE_COOKIE, pre, cookieOptions(s));
    }
    binding = `pre:${pre}`;
  }
  states.set(req, { lang, session, secret, binding, csrf: csrfToken(secret, binding) });
}

/** preHandler of every POST: the form must carry the token of this session / browser. */
export function csrfOk(req: FastifyRequest): boolean {
  const st = stateOf(req);
  return csrfValid(st.secret, st.binding, field(req.body, '_csrf'));
}

/** The client's address as the socket sees it (the app does not trust proxy headers). */
export function clientIp(req: FastifyRequest): string {
  return req.ip || 'unknown';
}

/** The signed-in account of the request, or a redirect to sign-in (null). */
export function signedIn(req: FastifyRequest, reply: FastifyReply): string | null {
  const session = stateOf(req).session;
  if (!session?.secondFactorAt) {
    reply.redirect(session ? '/console/verify' : '/console/sign-in', 303);
    return null;
  }
  return session.accountId;
}
