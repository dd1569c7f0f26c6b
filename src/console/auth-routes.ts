import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'drizzle-orm';
import { appendAudit } from '../platform/audit.ts';
import { israelDate } from '../platform/clock.ts';
import { queryOne } from '../platform/db/sql.ts';
import { AppError } from '../platform/errors.ts';
import type { Services } from '../platform/http/services.ts';
import { errorSummary } from '../platform/logger.ts';
import { takeDailyAllowance } from '../platform/usage.ts';
import { createAccount } from '../accounts/accounts.ts';
import { clientIp, cookieOptions, frameOf, stateOf } from './context.ts';
import { checkSignUp, field, maskPhone, normalizeCode, normalizeEmail } from './forms.ts';
import { t } from './i18n.ts';
import { judgeResend, SESSION_TTL_MS, SIGN_UPS_PER_ADDRESS_PER_DAY } from './limits.ts';
import { completeSecondFactor, createPendingSession, endSession, SESSION_COOKIE } from './sessions.ts';
import {
  accountByEmail,
  checkCode,
  codeSendTimes,
  hashPassword,
  issueCode,
  lockout,
  passwordMatches,
  recordAttempt,
  withdrawLatestCode,
} from './sign-in.ts';
import type { SmsSender } from './sms.ts';
import { signInPage, signUpDonePage, signUpPage, verifyPage } from './views/auth-pages.ts';

const htmlType = 'text/html; charset=utf-8';

function send(reply: FastifyReply, status: number, body: string) {
  return reply.status(status).type(htmlType).send(body);
}

/** The text message of a code, in the visitor's language. */
function codeMessage(lang: 'he' | 'en', code: string): string {
  return lang === 'he' ? `קוד הכניסה שלך לפנקס: ${code}. בתוקף 5 דקות.` : `Your pinkas sign-in code: ${code}. Valid for 5 minutes.`;
}

export function registerAuthRoutes(c: FastifyInstance, s: Services, sms: SmsSender | null): void {
  const control = s.databases.live;

  c.get('/', async (req, reply) => {
    const st = stateOf(req);
    if (st.session?.secondFactorAt) return reply.redirect('/console/keys', 303);
    if (st.session) return reply.redirect('/console/verify', 303);
    return reply.redirect('/console/sign-in', 303);
  });

  // ---- sign-up
  c.get('/sign-up', async (req, reply) => send(reply, 200, signUpPage(frameOf(req))));

  c.post('/sign-up', async (req, reply) => {
    const f = frameOf(req);
    const checked = checkSignUp(req.body);
    const values = { name: field(req.body, 'name'), email: field(req.body, 'email'), phone: field(req.body, 'phone') };
    if (!checked.ok) return send(reply, 400, signUpPage(f, { values, errors: checked.errors }));
    const v = checked.value;
    const existing = await queryOne(control.db, sql`SELECT 1 FROM accounts WHERE lower(email) = ${v.email}`);
    if (existing) return send(reply, 409, signUpPage(f, { values, errors: { email: 'err_email_taken' } }));
    const now = s.clock.now();
    // Cheap refusal before the memory-hard hash, so a sign-up flood from one address costs little;
    // the exact allowance is taken below, in the account's transaction.
    const used = await queryOne<{ count: number }>(
      control.db,
      sql`SELECT count FROM usage_daily WHERE subject = ${`ip:${clientIp(req)}`} AND metric = 'console_sign_ups' AND day = ${israelDate(now)}`,
    );
    if (used && Number(used.count) >= SIGN_UPS_PER_ADDRESS_PER_DAY) return send(reply, 429, signUpPage(f, { values, message: t(f.lang, 'err_rate') }));
    const passwordHash = await hashPassword(v.password);
    try {
      const account = await control.db.transaction(async (tx) => {
        await takeDailyAllowance(tx, {
          day: israelDate(now),
          subject: `ip:${clientIp(req)}`,
          metric: 'console_sign_ups',
          limit: SIGN_UPS_PER_ADDRESS_PER_DAY,
          what: 'console sign-ups from this address',
        });
        const a = await createAccount(tx, now, { name: v.name, email: v.email, phone: v.phone, passwordHash, approvalStatus: 'pending' });
        await appendAudit(tx, now, { accountId: a.id, keyId: null }, {
          action: 'account.signed_up',
          entityType: 'account',
          entityId: a.id,
          after: { name: a.name, email: a.email, phone: a.phone, approvalStatus: a.approvalStatus },
        });
        return a;
      });
      return send(reply, 201, signUpDonePage(f, account.name));
    } catch (err) {
      // Two sign-ups racing for one email: the UNIQUE constraint decides.
      if (String(errorSummary(err).code) === '23505') return send(reply, 409, signUpPage(f, { values, errors: { email: 'err_email_taken' } }));
      if (err instanceof AppError && err.status === 429) return send(reply, 429, signUpPage(f, { values, message: t(f.lang, 'err_rate') }));
      throw err;
    }
  });

  // ---- sign-in: password
  c.get('/sign-in', async (req, reply) => {
    const st = stateOf(req);
    if (st.session?.secondFactorAt) return reply.redirect('/console/keys', 303);
    return send(reply, sms ? 200 : 503, signInPage(frameOf(req), { unavailable: !sms }));
  });

  c.post('/sign-in', async (req, reply) => {
    const f = frameOf(req);
    if (!sms) return send(reply, 503, signInPage(f, { unavailable: true }));
    const now = s.clock.now();
    const ip = clientIp(req);
    const rawEmail = field(req.body, 'email');
    const email = normalizeEmail(rawEmail) ?? rawEmail.trim().toLowerCase().slice(0, 254);
    const password = field(req.body, 'password');
    const refuse = (until: number) => {
      const minutes = Math.max(1, Math.ceil((until - now.getTime()) / 60_000));
      reply.header('Retry-After', String(Math.ceil((until - now.getTime()) / 1000)));
      return send(reply, 429, signInPage(f, { email: rawEmail, message: t(f.lang, 'locked_out', { minutes }) }));
    };
    const locked = await lockout(control.db, now, email, ip);
    if (locked !== null) return refuse(locked);

    const account = email ? await accountByEmail(control.db, email) : null;
    const ok = (await passwordMatches(account?.passwordHash ?? null, password)) && account !== null;
    await recordAttempt(control.db, now, { email, ip, accountId: account?.id ?? null, step: 'password', success: ok });
    if (!ok || !account) {
      const after = await lockout(control.db, now, email, ip);
      if (after !== null) return refuse(after);
      return send(reply, 401, signInPage(f, { email: rawEmail, message: t(f.lang, 'signin_failed') }));
    }
    if (account.approvalStatus === 'suspended') return send(reply, 403, signInPage(f, { email: rawEmail, message: t(f.lang, 'suspended') }));
    if (!account.phone) return send(reply, 403, signInPage(f, { email: rawEmail, message: t(f.lang, 'sms_unconfigured') }));

    const previous = stateOf(req).session;
    if (previous) await endSession(control.db, previous.id, now);
    const { session, token } = await createPendingSession(control.db, now, { accountId: account.id, ip, userAgent: req.headers['user-agent'] });
    const code = await issueCode(control.db, now, stateOf(req).secret, session.id);
    try {
      await sms.send(account.phone, codeMessage(f.lang, code));
    } catch (err) {
      req.log.warn({ err: errorSummary(err), sessionId: session.id }, 'console sign-in code not sent');
      await endSession(control.db, session.id, now);
      return send(reply, 502, signInPage(f, { email: rawEmail, message: t(f.lang, 'send_failed') }));
    }
    reply.setCookie(SESSION_COOKIE, token, cookieOptions(s));
    return reply.redirect('/console/verify', 303);
  });

  // ---- sign-in: the SMS code
  const pendingOnly = async (req: FastifyRequest, reply: FastifyReply) => {
    const st = stateOf(req);
    if (!st.session) {
      reply.redirect('/console/sign-in', 303);
      return null;
    }
    if (st.session.secondFactorAt) {
      reply.redirect('/console/keys', 303);
      return null;
    }
    const row = await queryOne<{ phone: string | null; email: string | null }>(
      control.db,
      sql`SELECT phone, email FROM accounts WHERE id = ${st.session.accountId}`,
    );
    return { session: st.session, phone: maskPhone(row?.phone ?? null), email: row?.email ?? '' };
  };

  c.get('/verify', async (req, reply) => {
    const p = await pendingOnly(req, reply);
    if (!p) return reply;
    return send(reply, 200, verifyPage(frameOf(req), { phone: p.phone }));
  });

  c.post('/verify', async (req, reply) => {
    const p = await pendingOnly(req, reply);
    if (!p) return reply;
    const f = frameOf(req);
    const now = s.clock.now();
    const ip = clientIp(req);
    const locked = await lockout(control.db, now, p.email, ip);
    if (locked !== null) {
      await endSession(control.db, p.session.id, now);
      reply.clearCookie(SESSION_COOKIE, cookieOptions(s));
      const minutes = Math.max(1, Math.ceil((locked - now.getTime()) / 60_000));
      reply.header('Retry-After', String(Math.ceil((locked - now.getTime()) / 1000)));
      return send(reply, 429, signInPage(f, { message: t(f.lang, 'locked_out', { minutes }) }));
    }
    const code = normalizeCode(field(req.body, 'code'));
    if (!code) return send(reply, 400, verifyPage(f, { phone: p.phone, message: t(f.lang, 'code_format') }));
    const secret = stateOf(req).secret;
    const result = await control.db.transaction(async (tx) => {
      const r = await checkCode(tx, now, secret, p.session.id, code);
      if (r.verdict === 'accept' || r.verdict === 'wrong') {
        await recordAttempt(tx, now, { email: p.email, ip, accountId: p.session.accountId, step: 'code', success: r.verdict === 'accept' });
      }
      const token = r.verdict === 'accept' ? await completeSecondFactor(tx, p.session.id, now) : null;
      return { ...r, token };
    });
    if (result.token) {
      reply.setCookie(SESSION_COOKIE, result.token, cookieOptions(s, Math.floor(SESSION_TTL_MS / 1000)));
      return reply.redirect('/console/keys', 303);
    }
    const message =
      result.verdict === 'wrong'
        ? result.attemptsLeft > 0
          ? t(f.lang, 'code_wrong', { left: result.attemptsLeft })
          : t(f.lang, 'code_exhausted')
        : result.verdict === 'expired' || result.verdict === 'none'
          ? t(f.lang, 'code_expired')
          : t(f.lang, 'code_exhausted');
    return send(reply, result.verdict === 'wrong' ? 401 : 410, verifyPage(f, { phone: p.phone, message }));
  });

  c.post('/verify/resend', async (req, reply) => {
    const p = await pendingOnly(req, reply);
    if (!p) return reply;
    const f = frameOf(req);
    if (!sms) return send(reply, 503, signInPage(f, { unavailable: true }));
    const now = s.clock.now();
    const verdict = judgeResend(await codeSendTimes(control.db, p.session.id), now.getTime());
    if (!verdict.ok && verdict.why === 'too_soon') {
      const seconds = Math.ceil(verdict.retryAfterMs / 1000);
      reply.header('Retry-After', String(seconds));
      return send(reply, 429, verifyPage(f, { phone: p.phone, message: t(f.lang, 'resend_too_soon', { seconds }) }));
    }
    if (!verdict.ok) {
      await endSession(control.db, p.session.id, now);
      reply.clearCookie(SESSION_COOKIE, cookieOptions(s));
      return send(reply, 429, signInPage(f, { message: t(f.lang, 'resend_too_many') }));
    }
    const account = await queryOne<{ phone: string }>(control.db, sql`SELECT phone FROM accounts WHERE id = ${p.session.accountId}`);
    const code = await issueCode(control.db, now, stateOf(req).secret, p.session.id);
    try {
      await sms.send(account!.phone, codeMessage(f.lang, code));
    } catch (err) {
      req.log.warn({ err: errorSummary(err), sessionId: p.session.id }, 'console sign-in code not sent');
      await withdrawLatestCode(control.db, p.session.id);
      return send(reply, 502, verifyPage(f, { phone: p.phone, message: t(f.lang, 'send_failed') }));
    }
    return send(reply, 200, verifyPage(f, { phone: p.phone, message: t(f.lang, 'resend_sent'), kind: 'ok' }));
  });

  c.post('/sign-out', async (req, reply) => {
    const st = stateOf(req);
    if (st.session) await endSession(control.db, st.session.id, s.clock.now());
    reply.clearCookie(SESSION_COOKIE, cookieOptions(s));
    return reply.redirect('/console/sign-in', 303);
  });
}
