import { sql } from 'drizzle-orm';
import { queryOne } from '../platform/db/sql.ts';
import { AppError, notFound, unconfigured } from '../platform/errors.ts';
import { appendAudit } from '../platform/audit.ts';
import { israelDate } from '../platform/clock.ts';
import { bumpCounter, subject } from '../platform/usage.ts';
import type { Services } from '../platform/http/services.ts';
import type { RequestContext } from '../platform/http/context.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { findDocumentRow, type DocumentSnapshot } from '../documents/index.ts';
import { errorSummary } from '../platform/logger.ts';
import { consentWarnings, handOut, renderedDocument, type PrintVariant } from './handout.ts';
import { documentEmail, mailerFor } from './email.ts';

export interface EmailResult {
  sent: string[];
  failed: string[];
  variant: PrintVariant;
  url: string;
  warnings: { code: string; message: string }[];
}

/** Sliding window per key across processes: the rate_limit_hit SQL function of the foundation. */
async function takeEmailAllowance(s: Services, ctx: RequestContext): Promise<void> {
  const limit = s.config.prints.emailPerMinute;
  const r = await queryOne<{ allowed: boolean; retry_after_ms: number }>(
    s.databases.live.db,
    sql`SELECT * FROM rate_limit_hit(${`email:${ctx.key.id}`}, ${s.clock.now().getTime()}, ${60_000}, ${limit})`,
  );
  if (!r!.allowed) {
    const seconds = Math.max(1, Math.ceil(Number(r!.retry_after_ms) / 1000));
    throw new AppError('rate_limited', `at most ${limit} email calls per minute per key; retry in ${seconds} s`, { 'Retry-After': String(seconds) });
  }
}

/**
 * Checks everything that can be checked before the origin is consumed (mode, configuration,
 * the document, the rate, the mail server answering), then hands out and sends one message per
 * address. The variant is decided before sending, so every recipient gets the same link.
 */
export async function emailDocument(
  s: Services,
  ctx: RequestContext,
  { business, documentId, to }: { business: BusinessRecord; documentId: string; to: string[] },
): Promise<EmailResult> {
  // Ownership before configuration: another business's (or no) document is 404 whatever the mode
  // and SMTP setup, so a 503 never tells that the id exists (issue 16).
  if (!(await findDocumentRow(ctx.database.db, business.id, documentId))) throw notFound('document');
  if (ctx.mode === 'sandbox') throw unconfigured('email is not available in the sandbox: use a live key (share links work in the sandbox)');
  const smtp = s.config.prints.smtp;
  if (!smtp) throw unconfigured('email is not configured on this server (SMTP_HOST, SMTP_FROM)');
  const doc = await renderedDocument(s, ctx.database.db, business.id, documentId);
  await takeEmailAllowance(s, ctx);
  const mailer = mailerFor(smtp);
  try {
    await mailer.verify();
  } catch (err) {
    s.logger.warn({ err: errorSummary(err) }, 'mail server unreachable');
    throw new AppError('provider', 'the mail server did not answer; nothing was sent and the document was not handed out');
  }

  const recipients = [...new Map(to.map((a) => [a.trim().toLowerCase(), a.trim()])).values()];
  const handout = await handOut(s, ctx, { business, documentId, kind: 'auto', channel: 'email', recipients });
  const url = `${s.config.publicBaseUrl}/api/docs/${handout.slug}/d.pdf`;
  const content = documentEmail(doc.snapshot as DocumentSnapshot, url);
  const sent: string[] = [];
  const failed: string[] = [];
  for (const address of recipients) {
    try {
      await mailer.send({ to: address, ...content, replyTo: business.email });
      sent.push(address);
    } catch (err) {
      s.logger.warn({ err: errorSummary(err), documentId }, 'email to one recipient failed');
      failed.push(address);
    }
  }

  const now = s.clock.now();
  await ctx.database.db.transaction(async (tx) => {
    if (sent.length > 0) await bumpCounter(tx, { day: israelDate(now), subject: subject.account(business.accountId), metric: 'emails_sent' }, sent.length);
    await appendAudit(
      tx,
      { at: now, actor: ctx.actor },
      {
        businessId: business.id,
        action: 'document.email_sent',
        entityType: 'document',
        entityId: documentId,
        after: { printId: handout.printId, variant: handout.variant, sent, failed },
      },
    );
  });
  return { sent, failed, variant: handout.variant, url, warnings: await consentWarnings(ctx.database.db, doc) };
}
