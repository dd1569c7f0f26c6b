// Email of the public PDF link: one message per address, over SMTP (nodemailer).
import nodemailer, { type Transporter } from 'nodemailer';
import type { PrintsConfig } from '../platform/config.ts';
import { DOC_TITLES, L, EN, EN_DOC_TITLES } from '../pdf/index.ts';
import type { DocumentSnapshot } from '../documents/index.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  replyTo?: string | null;
  /** Content-Language header; absent: "he". */
  language?: string;
}

export interface Mailer {
  /** Connects and greets the server: fails when the mail server cannot be reached. */
  verify(): Promise<void>;
  send(message: MailMessage): Promise<void>;
}

type SmtpConfig = NonNullable<PrintsConfig['smtp']>;

export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    private readonly cfg: SmtpConfig,
    timeoutMs = 15_000,
  ) {
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
      headers: { 'Content-Language': m.language ?? 'he' },
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

export interface DocumentEmail {
  subject: string;
  text: string;
  html: string;
  /** Content-Language of the message: "he", "en" or "he, en". */
  language: string;
}

interface Part {
  subject: string;
  lines: string[];
  /** HTML paragraphs, already escaped. */
  html: string[];
}

function hebrewPart(snap: DocumentSnapshot, url: string): Part {
  const title = `${DOC_TITLES[snap.docType]} ${L.number} ${snap.docNumber}`;
  const dealer = snap.dealer.name;
  const greeting = snap.party?.name ? `שלום ${snap.party.name},` : 'שלום,';
  return {
    subject: `${title} מאת ${dealer}`,
    lines: [greeting, '', `מצורף קישור ל${title} מאת ${dealer}.`, 'המסמך חתום בחתימה אלקטרונית וניתן לצפייה ולהורדה בקישור:', url, '', 'בברכה,', dealer],
    html: [
      `<p>${escapeHtml(greeting)}</p>`,
      `<p>מצורף קישור ל${escapeHtml(title)} מאת ${escapeHtml(dealer)}.</p>`,
      `<p>המסמך חתום בחתימה אלקטרונית וניתן לצפייה ולהורדה בקישור:<br><a href="${escapeHtml(url)}" dir="ltr">${escapeHtml(url)}</a></p>`,
      `<p>בברכה,<br>${escapeHtml(dealer)}</p>`,
    ],
  };
}

function englishPart(snap: DocumentSnapshot, url: string): Part {
  const title = `${EN_DOC_TITLES[snap.docType]} ${EN.number} ${snap.docNumber}`;
  const dealer = snap.dealer.name;
  const greeting = snap.party?.name ? `Hello ${snap.party.name},` : 'Hello,';
  return {
    subject: `${title} from ${dealer}`,
    lines: [
      greeting,
      '',
      `Here is a link to ${title} from ${dealer}.`,
      'The document is electronically signed; view and download it here:',
      url,
      '',
      'Kind regards,',
      dealer,
    ],
    html: [
      `<p>${escapeHtml(greeting)}</p>`,
      `<p>Here is a link to ${escapeHtml(title)} from ${escapeHtml(dealer)}.</p>`,
      `<p>The document is electronically signed; view and download it here:<br><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>`,
      `<p>Kind regards,<br>${escapeHtml(dealer)}</p>`,
    ],
  };
}

const page = (lang: string, dir: 'rtl' | 'ltr', body: string) =>
  `<!doctype html><html lang="${lang}" dir="${dir}"><body dir="${dir}" style="font-family:Arial,sans-serif;text-align:${dir === 'rtl' ? 'right' : 'left'}">
${body}
</body></html>`;

/**
 * Subject and body (plain text and HTML) with the public link, in the document's language:
 * Hebrew (right to left), English, or both — Hebrew first, then English, each in its direction.
 */
export function documentEmail(snap: DocumentSnapshot, url: string): DocumentEmail {
  const language = snap.language ?? 'he';
  const he = hebrewPart(snap, url);
  const en = englishPart(snap, url);
  if (language === 'en') {
    return { subject: en.subject, text: en.lines.join('\n'), html: page('en', 'ltr', en.html.join('\n')), language: 'en' };
  }
  if (language === 'he+en') {
    const body = `<div dir="rtl" lang="he" style="text-align:right">\n${he.html.join('\n')}\n</div>\n<hr>\n<div dir="ltr" lang="en" style="text-align:left">\n${en.html.join('\n')}\n</div>`;
    return {
      subject: `${he.subject} / ${en.subject}`,
      text: [...he.lines, '', '---', '', ...en.lines].join('\n'),
      html: page('he', 'rtl', body),
      language: 'he, en',
    };
  }
  return { subject: he.subject, text: he.lines.join('\n'), html: page('he', 'rtl', he.html.join('\n')), language: 'he' };
}
