// Email of the public PDF link: one message per address, over SMTP (nodemailer).
import nodemailer, { type Transporter } from 'nodemailer';
import type { PrintsConfig } from '../platform/config.ts';
import { DOC_TITLES, L } from '../pdf/hebrew.ts';
import type { DocumentSnapshot } from '../documents/snapshot.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  replyTo?: string | null;
}

export interface Mailer {
  /** Connects and greets the server: fails when the mail server cannot be reached. */
  verify(): Promise<void>;
  send(message: MailMessage): Promise<void>;
}

type SmtpConfig = NonNullable<PrintsConfig['smtp']>;

export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(private readonly cfg: SmtpConfig, timeoutMs = 15_000) {
    this.transport = nodemailer.createTransport({
      host: cfg.host,
      port: cfg.port,
      secure: cfg.secure,
      auth: cfg.user ? { user: cfg.user, pass: cfg.password ?? '' } : undefined,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
  }

  async verify(): Promise<void> {
    await this.transport.verify();
  }

  async send(m: MailMessage): Promise<void> {
    await this.transport.sendMail({
      from: this.cfg.from,
      to: m.to,
      replyTo: m.replyTo ?? undefined,
      subject: m.subject,
      text: m.text,
      html: m.html,
      headers: { 'Content-Language': 'he' },
    });
  }
}

// One transport per SMTP configuration in the process (nodemailer transports are reusable).
const mailers = new Map<string, Mailer>();

export function mailerFor(cfg: SmtpConfig): Mailer {
  const key = JSON.stringify(cfg);
  let m = mailers.get(key);
  if (!m) {
    m = new SmtpMailer(cfg);
    mailers.set(key, m);
  }
  return m;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Hebrew subject and body (plain text and right-to-left HTML) with the public link. */
export function documentEmail(snap: DocumentSnapshot, url: string): { subject: string; text: string; html: string } {
  const title = `${DOC_TITLES[snap.docType]} ${L.number} ${snap.docNumber}`;
  const subject = `${title} מאת ${snap.dealer.name}`;
  const greeting = snap.party?.name ? `שלום ${snap.party.name},` : 'שלום,';
  const lines = [
    greeting,
    '',
    `מצורף קישור ל${title} מאת ${snap.dealer.name}.`,
    'המסמך חתום בחתימה אלקטרונית וניתן לצפייה ולהורדה בקישור:',
    url,
    '',
    'בברכה,',
    snap.dealer.name,
  ];
  const html = `<!doctype html><html lang="he" dir="rtl"><body dir="rtl" style="font-family:Arial,sans-serif;text-align:right">
<p>${escapeHtml(greeting)}</p>
<p>מצורף קישור ל${escapeHtml(title)} מאת ${escapeHtml(snap.dealer.name)}.</p>
<p>המסמך חתום בחתימה אלקטרונית וניתן לצפייה ולהורדה בקישור:<br><a href="${escapeHtml(url)}" dir="ltr">${escapeHtml(url)}</a></p>
<p>בברכה,<br>${escapeHtml(snap.dealer.name)}</p>
</body></html>`;
  return { subject, text: lines.join('\n'), html };
}
