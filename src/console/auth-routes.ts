import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../platform/http/services.ts';
import { clientIp, cookieOptions, frameOf, stateOf } from './context.ts';
import { checkSignUp, field, maskPhone, normalizeCode, normalizeEmail } from './forms.ts';
import { t } from './i18n.ts';
import { SESSION_TTL_MS } from './limits.ts';
import { endSession, SESSION_COOKIE, type ConsoleSession } from './sessions.ts';
import { accountContact, codeStep, passwordStep, resendCode, type CodeOutcome } from './sign-in-flow.ts';
import { signUp } from './sign-up.ts';
import type { SmsSender } from './sms.ts';
import { signInPage, signUpDonePage, signUpPage, verifyPage, type Frame } from './views/auth-pages.ts';

const htmlType = 'text/html; charset=utf-8';

function send(reply: FastifyReply, status: number, body: string) {
  return reply.status(status).type(htmlType).send(body);
}

/** Sets Retry-After and answers the sign-in page saying how many minutes the lockout lasts. */
function lockedOut(reply: FastifyReply, f: Frame, { now, until, email }: { now: Date; until: number; email?: string }) {
  const minutes = Math.max(1, Math.ceil((until - now.getTime()) / 60_000));
  reply.header('Retry-After', String(Math.ceil((until - now.getTime()) / 1000)));
  return send(reply, 429, signInPage(f, { ...(email !== undefined ? { email } : {}), message: t(f.lang, 'locked_out', { minutes }) }));
}

export function registerAuthRoutes(c: FastifyInstance, s: Services, sms: SmsSender | null): void {
  registerEntry(c);
  registerSignUp(c, s);
  registerSignIn(c, s, sms);
  registerVerify(c, s);
  registerResend(c, s, sms);
  registerSignOut(c, s);
}

function registerEntry(c: FastifyInstance): void {
  c.get('/', async (req, reply) => {
    const st = stateOf(req);
    if (st.session?.secondFactorAt) return reply.redirect('/console/keys', 303);
    if (st.session) return reply.redirect('/console/verify', 303);
    return reply.redirect('/console/sign-in', 303);
  });
}

function registerSignUp(c: FastifyInstance, s: Services): void {
  c.get('/sign-up', async (req, reply) => send(reply, 200, signUpPage(frameOf(req))));

  c.post('/sign-up', async (req, reply) => {
    const f = frameOf(req);
    const checked = checkSignUp(req.body);
    const values = { name: field(req.body, 'name'), email: field(req.body, 'email'), phone: field(req.body, 'phone') };
    if (!checked.ok) return send(reply, 400, signUpPage(f, { values, errors: checked.errors }));
    const result = await signUp(s.databases.live, s.clock.now(), clientIp(req), checked.value);
    if (result.ok) return send(reply, 201, signUpDonePage(f, result.account.name));
    if (result.why === 'taken') return send(reply, 409, signUpPage(f, { values, errors: { email: 'err_email_taken' } }));
    return send(reply, 429, signUpPage(f, { values, message: t(f.lang, 'err_rate') }));
  });
}

function registerSignIn(c: FastifyInstance, s: Services, sms: SmsSender | null): void {
  c.get('/sign-in', async (req, reply) => {
    const st = stateOf(req);
    if (st.session?.secondFactorAt) return reply.redirect('/console/keys', 303);
    return send(reply, sms ? 200 : 503, signInPage(frameOf(req), { unavailable: !sms }));
  });

  c.post('/sign-in', async (req, reply) => {
    const f = frameOf(req);
    if (!sms) return send(reply, 503, signInPage(f, { unavailable: true }));
    const now = s.clock.now();
    const rawEmail = field(req.body, 'email');
    const st = stateOf(req);
    const outcome = await passwordStep(s.databases.live, now, {
      sms,
      log: req.log,
      step: {
        email: normalizeEmail(rawEmail) ?? rawEmail.trim().toLowerCase().slice(0, 254),
        password: field(req.body, 'password'),
        ip: clientIp(req),
        userAgent: req.headers['user-agent'],
        previousSessionId: st.session?.id ?? null,
        secret: st.secret,
        lang: f.lang,
      },
    });
    const refused = (status: number, key: 'signin_failed' | 'suspended' | 'sms_unconfigured' | 'send_failed') =>
      send(reply, status, signInPage(f, { email: rawEmail, message: t(f.lang, key) }));
    switch (outcome.kind) {
      case 'locked':
        return lockedOut(reply, f, { now, until: outcome.until, email: rawEmail });
      case 'failed':
        return refused(401, 'signin_failed');
      case 'suspended':
        return refused(403, 'suspended');
      case 'no_phone':
        return refused(403, 'sms_unconfigured');
      case 'send_failed':
        return refused(502, 'send_failed');
      case 'code_sent':
        reply.setCookie(SESSION_COOKIE, outcome.token, cookieOptions(s));
        return reply.redirect('/console/verify', 303);
    }
  });
}

interface Pending {
  session: ConsoleSession;
  phone: string;
  email: string;
}

/** The pending (password-checked) sign-in of this request, or null after redirecting elsewhere. */
async function pendingOnly(s: Services, req: FastifyRequest, reply: FastifyReply): Promise<Pending | null> {
  const st = stateOf(req);
  if (!st.session) {
    reply.redirect('/console/sign-in', 303);
    return null;
  }
  if (st.session.secondFactorAt) {
    reply.redirect('/console/keys', 303);
    return null;
  }
  const row = await accountContact(s.databases.live.db, st.session.accountId);
  return { session: st.session, phone: maskPhone(row?.phone ?? null), email: row?.email ?? '' };
}

/** The verify page's message for a refused code. */
function refusedCodeMessage(f: Frame, result: Extract<CodeOutcome, { kind: 'refused' }>): string {
  if (result.verdict === 'wrong') return result.attemptsLeft > 0 ? t(f.lang, 'code_wrong', { left: result.attemptsLeft }) : t(f.lang, 'code_exhausted');
  return result.verdict === 'expired' || result.verdict === 'none' ? t(f.lang, 'code_expired') : t(f.lang, 'code_exhausted');
}

function registerVerify(c: FastifyInstance, s: Services): void {
  c.get('/verify', async (req, reply) => {
    const p = await pendingOnly(s, req, reply);
    if (!p) return reply;
    return send(reply, 200, verifyPage(frameOf(req), { phone: p.phone }));
  });

  c.post('/verify', async (req, reply) => {
    const p = await pendingOnly(s, req, reply);
    if (!p) return reply;
    const f = frameOf(req);
    const now = s.clock.now();
    const ip = clientIp(req);
    const code = normalizeCode(field(req.body, 'code'));
    const pending = { sessionId: p.session.id, accountId: p.session.accountId, email: p.email };
    const result = await codeStep(s.databases.live, now, { pending, ip, secret: stateOf(req).secret, code });
    if (result.kind === 'locked') {
      reply.clearCookie(SESSION_COOKIE, cookieOptions(s));
      return lockedOut(reply, f, { now, until: result.until });
    }
    if (result.kind === 'bad_format') return send(reply, 400, verifyPage(f, { phone: p.phone, message: t(f.lang, 'code_format') }));
    if (result.kind === 'signed_in') {
      reply.setCookie(SESSION_COOKIE, result.token, cookieOptions(s, Math.floor(SESSION_TTL_MS / 1000)));
      return reply.redirect('/console/keys', 303);
    }
    return send(reply, result.verdict === 'wrong' ? 401 : 410, verifyPage(f, { phone: p.phone, message: refusedCodeMessage(f, result) }));
  });
}

function registerResend(c: FastifyInstance, s: Services, sms: SmsSender | null): void {
  c.post('/verify/resend', async (req, reply) => {
    const p = await pendingOnly(s, req, reply);
    if (!p) return reply;
    const f = frameOf(req);
    if (!sms) return send(reply, 503, signInPage(f, { unavailable: true }));
    const outcome = await resendCode(s.databases.live, s.clock.now(), {
      sms,
      log: req.log,
      session: {
        sessionId: p.session.id,
        accountId: p.session.accountId,
        secret: stateOf(req).secret,
        lang: f.lang,
      },
    });
    switch (outcome.kind) {
      case 'too_soon': {
        const seconds = Math.ceil(outcome.retryAfterMs / 1000);
        reply.header('Retry-After', String(seconds));
        return send(reply, 429, verifyPage(f, { phone: p.phone, message: t(f.lang, 'resend_too_soon', { seconds }) }));
      }
      case 'too_many':
        reply.clearCookie(SESSION_COOKIE, cookieOptions(s));
        return send(reply, 429, signInPage(f, { message: t(f.lang, 'resend_too_many') }));
      case 'send_failed':
        return send(reply, 502, verifyPage(f, { phone: p.phone, message: t(f.lang, 'send_failed') }));
      case 'sent':
        return send(reply, 200, verifyPage(f, { phone: p.phone, message: t(f.lang, 'resend_sent'), kind: 'ok' }));
    }
  });
}

function registerSignOut(c: FastifyInstance, s: Services): void {
  c.post('/sign-out', async (req, reply) => {
    const st = stateOf(req);
    if (st.session) await endSession(s.databases.live.db, st.session.id, s.clock.now());
    reply.clearCookie(SESSION_COOKIE, cookieOptions(s));
    return reply.redirect('/console/sign-in', 303);
  });
}
