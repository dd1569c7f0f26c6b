// Emails speak the document's language: subject, plain text, HTML direction, Content-Language.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { pdfInfo, pdfText } from '../pdf/extract-text.ts';
import { issueDoc, pdfPath, renderRunner, tempDataDir } from './helpers.ts';
import { parseMail } from './mime.ts';
import { documentEmail } from '../../src/prints/email.ts';
import type { DocumentSnapshot } from '../../src/documents/snapshot-types.ts';

const snap = (over: Partial<DocumentSnapshot> = {}) =>
  ({ docType: 305, docNumber: 7, dealer: { name: 'Cafe Ltd' }, party: { name: 'Dana' }, ...over }) as unknown as DocumentSnapshot;
const URL_ = 'https://docs.example/api/docs/abc/d.pdf';

describe('documentEmail', () => {
  it('writes Hebrew by default, right to left', () => {
    const m = documentEmail(snap(), URL_);
    expect(m.subject).toBe("חשבונית מס מס' 7 מאת Cafe Ltd");
    expect(m.text).toContain('שלום Dana,');
    expect(m.html).toContain('dir="rtl"');
    expect(m.language).toBe('he');
  });

  it('writes English for an English document, left to right, with no Hebrew', () => {
    const m = documentEmail(snap({ language: 'en', docType: 330 }), URL_);
    expect(m.subject).toBe('Credit Tax Invoice No. 7 from Cafe Ltd');
    expect(m.text).toContain('Hello Dana,');
    expect(m.text).toContain(URL_);
    expect(m.html).toContain('<html lang="en" dir="ltr">');
    expect(m.html).toContain(`href="${URL_}"`);
    expect(`${m.subject}${m.text}${m.html}`).not.toMatch(/[\u0590-\u05FF]/);
    expect(m.language).toBe('en');
    expect(documentEmail(snap({ language: 'en', party: null }), URL_).text.startsWith('Hello,')).toBe(true);
  });

  it('writes both for a bilingual document, Hebrew first, each in its direction', () => {
    const m = documentEmail(snap({ language: 'he+en', docType: 400 }), URL_);
    expect(m.subject).toBe("קבלה מס' 7 מאת Cafe Ltd / Receipt No. 7 from Cafe Ltd");
    expect(m.text.indexOf('שלום Dana,')).toBeLessThan(m.text.indexOf('Hello Dana,'));
    expect(m.html).toContain('<div dir="rtl" lang="he"');
    expect(m.html).toContain('<div dir="ltr" lang="en"');
    expect(m.language).toBe('he, en');
  });

  it('escapes names in the HTML', () => {
    expect(documentEmail(snap({ language: 'en', party: { name: '<b>x</b>' } as never }), URL_).html).toContain('&lt;b&gt;x&lt;/b&gt;');
  });
});

interface Received {
  raw: string;
}

describe('an English document emailed over SMTP', () => {
  let env: TestEnv;
  let a: TestAccount;
  let smtp: SMTPServer;
  const received: Received[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      logger: false,
      onData(stream, _session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({ raw: Buffer.concat(chunks).toString('utf8') });
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    env = await createTestEnv({
      env: {
        DATA_DIR: tempDataDir(),
        PUBLIC_BASE_URL: 'https://docs.pinkas.example',
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String((smtp.server.address() as AddressInfo).port),
        SMTP_FROM: 'pinkas <no-reply@pinkas.example>',
      },
    });
    a = await env.account();
  });
  afterAll(async () => {
    await env?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('sends an English message whose link serves the English dollar PDF', async () => {
    const b = await env.business(a.live, { email: 'office@dealer.example' });
    const doc = await issueDoc(env, a.live, b.id, { language: 'en', currency: 'USD', exchangeRate: '3.7210' });
    await renderRunner(env).runDue('live');
    const res = await env.call('POST', pdfPath(b.id, doc.id, 'email'), { key: a.live, body: { to: ['ap@customer.example'] } });
    expect(res.status).toBe(200);
    const mail = parseMail(received.at(-1)!.raw);
    expect(mail.subject).toMatch(/^Tax Invoice No\. 1 from /);
    expect(mail.headers['content-language']).toBe('en');
    expect(mail.text).toContain('Hello ');
    expect(mail.html).toContain('dir="ltr"');

    const pdf = await env.call('GET', new URL(res.body.url).pathname, {});
    expect(pdf.status).toBe(200);
    const text = await pdfText(pdf.raw);
    expect(text).toContain('Tax Invoice No. 1');
    expect(text).toContain('USD 236.00'); // 2 × 100.00 + 18% VAT, in dollars
    expect(text).toContain('USD 1 = ₪3.7210');
    expect(text).toContain('₪878.16'); // the shekel total recorded at issue: 236.00 × 3.7210
    expect((await pdfInfo(pdf.raw)).Language).toBe('en');
  });
});
