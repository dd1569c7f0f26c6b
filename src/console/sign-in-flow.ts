/**
 * The console's sign-in steps (password, SMS code, resend), each one call from its route: the
 * route parses the form and turns the outcome into a page.
 */
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { errorSummary } from '../platform/logger.ts';
import type { Lang } from './i18n.ts';
import { judgeResend, type CodeVerdict } from './limits.ts';
import { completeSecondFactor, createPendingSession, endSession } from './sessions.ts';
import { accountByEmail, checkCode, codeSendTimes, issueCode, lockout, passwordMatches, recordAttempt, withdrawLatestCode } from './sign-in.ts';
import type { SmsSender } from './sms.ts';

/** Where a failed send is reported (the request's logger). */
export interface WarnLog {
  warn(obj: object, msg: string): void;
}

/** The text message of a code, in the visitor's language. */
function codeMessage(lang: Lang, code: string): string {
  return lang === 'he' ? `קוד הכניסה שלך לפנקס: ${code}. בתוקף 5 דקות.` : `Your pinkas sign-in code: ${code}. Valid for 5 minutes.`;
}

/** The phone and email of a session's account. */
export async function accountContact(ex: Executor, accountId: string): Promise<{ phone: string | null; email: string | null } | undefined> {
  return queryOne<{ phone: string | null; email: string | null }>(ex, sql`SELECT phone, email FROM accounts WHERE id = ${accountId}`);
}

export interface PasswordStep {
  email: string;
  password: string;
  ip: string;
  userAgent: string | undefined;
  /** The visitor's current session, ended when a new sign-in starts. */
  previousSessionId: string | null;
  secret: Buffer;
  lang: Lang;
}

export type PasswordOutcome =
  { kind: 'locked'; until: number } | { kind: 'failed' | 'suspended' | 'no_phone' | 'send_failed' } | { kind: 'code_sent'; token: string };

/** The password step: on success a pending session and a code sent by SMS. */
export async function passwordStep(
  control: Database,
  now: Date,
  { sms, log, step: p }: { sms: SmsSender; log: WarnLog; step: PasswordStep },
): Promise<PasswordOutcome> {
  const { email, ip } = p;
  const locked = await lockout(control.db, now, email, ip);
  if (locked !== null) return { kind: 'locked', until: locked };

  const account = email ? await accountByEmail(control.db, email) : null;
  const ok = (await passwordMatches(account?.passwordHash ?? null, p.password)) && account !== null;
  await recordAttempt(control.db, now, { email, ip, accountId: account?.id ?? null, step: 'password', success: ok });
  if (!ok || !account) {
    const after = await lockout(control.db, now, email, ip);
    return after !== null ? { kind: 'locked', until: after } : { kind: 'failed' };
  }
  if (account.approvalStatus === 'suspended') return { kind: 'suspended' };
  if (!account.phone) return { kind: 'no_phone' };

  if (p.previousSessionId) await endSession(control.db, p.previousSessionId, now);
  const { session, token } = await createPendingSession(control.db, now, { accountId: account.id, ip, userAgent: p.userAgent });
  const code = await issueCode(control.db, now, p.secret, session.id);
  try {
    await sms.send(account.phone, codeMessage(p.lang, code));
  } catch (err) {
    log.warn({ err: errorSummary(err), sessionId: session.id }, 'console sign-in code not sent');
    await endSession(control.db, session.id, now);
    return { kind: 'send_failed' };
  }
  return { kind: 'code_sent', token };
}

export interface PendingSignIn {
  sessionId: string;
  accountId: string;
  email: string;
}

export type CodeOutcome =
  | { kind: 'locked'; until: number }
  | { kind: 'bad_format' }
  | { kind: 'signed_in'; token: string }
  | { kind: 'refused'; verdict: CodeVerdict; attemptsLeft: number };

/**
 * The code step: a lockout ends the pending session (checked before the code's format); a right
 * code completes it (a new token). `code` null: not six digits.
 */
export async function codeStep(
  control: Database,
  now: Date,
  { pending: p, ip, secret, code }: { pending: PendingSignIn; ip: string; secret: Buffer; code: string | null },
): Promise<CodeOutcome> {
  const locked = await lockout(control.db, now, p.email, ip);
  if (locked !== null) {
    await endSession(control.db, p.sessionId, now);
    return { kind: 'locked', until: locked };
  }
  if (!code) return { kind: 'bad_format' };
  const result = await control.db.transaction(async (tx) => {
    const r = await checkCode(tx, { now, secret, sessionId: p.sessionId, code });
    if (r.verdict === 'accept' || r.verdict === 'wrong') {
      await recordAttempt(tx, now, { email: p.email, ip, accountId: p.accountId, step: 'code', success: r.verdict === 'accept' });
    }
    const token = r.verdict === 'accept' ? await completeSecondFactor(tx, p.sessionId, now) : null;
    return { ...r, token };
  });
  if (result.token) return { kind: 'signed_in', token: result.token };
  return { kind: 'refused', verdict: result.verdict, attemptsLeft: result.attemptsLeft };
}

export type ResendOutcome = { kind: 'too_soon'; retryAfterMs: number } | { kind: 'too_many' | 'send_failed' | 'sent' };

/** Another code for a pending sign-in, within the resend limits; too many ends the session. */
export async function resendCode(
  control: Database,
  now: Date,
  { sms, log, session: p }: { sms: SmsSender; log: WarnLog; session: { sessionId: string; accountId: string; secret: Buffer; lang: Lang } },
): Promise<ResendOutcome> {
  const verdict = judgeResend(await codeSendTimes(control.db, p.sessionId), now.getTime());
  if (!verdict.ok && verdict.why === 'too_soon') return { kind: 'too_soon', retryAfterMs: verdict.retryAfterMs };
  if (!verdict.ok) {
    await endSession(control.db, p.sessionId, now);
    return { kind: 'too_many' };
  }
  const account = await queryOne<{ phone: string }>(control.db, sql`SELECT phone FROM accounts WHERE id = ${p.accountId}`);
  const code = await issueCode(control.db, now, p.secret, p.sessionId);
  try {
    await sms.send(account!.phone, codeMessage(p.lang, code));
  } catch (err) {
    log.warn({ err: errorSummary(err), sessionId: p.sessionId }, 'console sign-in code not sent');
    await withdrawLatestCode(control.db, p.sessionId);
    return { kind: 'send_failed' };
  }
  return { kind: 'sent' };
}
