import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { pdfSignatureValid } from '../pdf/signature-check.ts';
import { pdfText } from '../pdf/extract-text.ts';
import { issueDoc, pdfPath, renderRunner, tempDataDir } from './helpers.ts';
import { parseMail } from './mime.ts';
import { subject } from '../../src/platform/usage.ts';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on 127.0.0.1: the client holds a full SMTP conversation with it. */
async function startSmtp(received: Received[]): Promise<{ server: SMTPServer; port: number }> {
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, cb) {
      if (address.address.startsWith('bounce')) {
        const err = Object.assign(new Error('mailbox unavailable'), { responseCode: 550 });
        return cb(err);
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.server.address() as AddressInfo).port };
}

let env: TestEnv;
let a: TestAccount;
let smtp: SMTPServer;
const received: Received[] = [];

beforeAll(async () => {
  const started = await startSmtp(received);
  smtp = started.server;
  env = await createTestEnv({
    env: {
      DATA_DIR: tempDataDir(),
      PUBLIC_BASE_URL: 'https://docs.pinkas.example',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(started.port),
      SMTP_FROM: 'pinkas <no-reply@pinkas.example>',
    },
  });
  a = await env.account();
});
afterAll(async () => {
  await env?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

async function rendered(key = a.live) {
  const b = await env.business(key, { email: 'office@dealer.example' });
  const doc = await issueDoc(env, key, b.id);
  await renderRunner(env).runDue(key === a.live ? 'live' : 'sandbox');
  return { b, doc };
}

describe('email', () => {
  it('sends one Hebrew message per address with the public link; the first email hands out the origin', async () => {
    const { b, doc } = await rendered();
    const before = received.length;
    const res = await env.call('POST', pdfPath(b.id, doc.id, 'email'), { key: a.live, body: { to: ['one@customer.example', 'two@customer.example'] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, sent: ['one@customer.example', 'two@customer.example'], failed: [], variant: 'origin' });
    expect(res.body.url).toMatch(/^https:\/\/docs\.pinkas\.example\/api\/docs\/[A-Za-z0-9_-]{32}\/d\.pdf$/);
    expect(res.body.warnings).toEqual([expect.objectContaining({ code: 'no_digital_consent' })]);

    const mine = received.slice(before);
    expect(mine.map((m) => m.to)).toEqual([['one@customer.example'], ['two@customer.example']]);
    for (const m of mine) {
      expect(m.from).toBe('no-reply@pinkas.example');
      const mail = parseMail(m.raw);
      expect(mail.subject).toBe('חשבונית מס מס\' 1 מאת עסק לדוגמה בע"מ');
      expect(mail.text).toContain('שלום לקוח לדוגמה,');
      expect(mail.text).toContain(res.body.url);
      expect(mail.html).toContain('dir="rtl"');
      expect(mail.html).toContain(`href="${res.body.url}"`);
      expect(mail.headers['reply-to']).toBe('office@dealer.example');
    }

    // The link in the message serves the signed origin, without a key.
    const path = new URL(parseMail(mine[0].raw).text.match(/https:\/\/\S+/)![0]).pathname;
    const pdf = await env.call('GET', path);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['x-print-variant']).toBe('origin');
    expect(pdfSignatureValid(pdf.raw)).toBe(true);
    expect(await pdfText(pdf.raw)).toContain('מקור');

    // Email, share and print share one counter: the origin is gone.
    const origin = await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.live, body: { kind: 'origin' } });
    expect(origin.status).toBe(409);
    const again = await env.call('POST', pdfPath(b.id, doc.id, 'email'), { key: a.live, body: { to: ['three@customer.example'] } });
    expect(again.body.variant).toBe('copy');
    const log = await env.call('GET', pdfPath(b.id, doc.id, 'prints'), { key: a.live });
    expect(log.body.prints.map((p: any) => `${p.variant}/${p.channel}`).sort()).toEqual(['copy/email', 'origin/email']);
    expect(log.body.prints.find((p: any) => p.variant === 'origin').recipients).toEqual(['one@customer.example', 'two@customer.example']);

    const usage = await env.sql<any>('live', `SELECT count FROM usage_daily WHERE subject = '${subject.account(a.id)}' AND metric = 'emails_sent'`);
    expect(usage.reduce((n: number, r: any) => n + Number(r.count), 0)).toBe(3);
  });

  it('a commercial paper (issue 30) goes out the same way: a 300 under its own title, its origin handed out once', async () => {
    const b = await env.business(a.live, { email: 'office@dealer.example' });
    const doc = await issueDoc(env, a.live, b.id, { docType: 300 });
    await renderRunner(env).runDue('live');
    const before = received.length;
    const res = await env.call('POST', pdfPath(b.id, doc.id, 'email'), { key: a.live, body: { to: ['buyer@customer.example'] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ sent: ['buyer@customer.example'], variant: 'origin' });
    const mail = parseMail(received.slice(before)[0].raw);
    expect(mail.subject).toBe('חשבונית עסקה מס\' 1 מאת עסק לדוגמה בע"מ');
    const pdf = await env.call('GET', new URL(mail.text.match(/https:\/\/\S+/)![0]).pathname);
    expect(await pdfText(pdf.raw)).toContain('זו אינה חשבונית מס');
    const again = await env.call('POST', pdfPath(b.id, doc.id, 'share'), { key: a.live });
    expect(again.body.variant).toBe('copy');
  });

  it('reports the addresses the server refused as failed', async () => {
    const { b, doc } = await rendered();
    const res = await env.call('POST', pdfPath(b.id, doc.id, 'email'), { key: a.live, body: { to: ['ok@customer.example', 'bounce@customer.example'] } });
    expect(res.status).toBe(200);
    expect(res.body.sent).toEqual(['ok@customer.example']);
    expect(res.body.failed).toEqual(['bounce@customer.example']);
  });

  it('validates 1 to 5 addresses', async () => {
    const { b, doc } = await rendered();
    for (const to of [[], ['a@x.example', 'b@x.example', 'c@x.example', 'd@x.example', 'e@x.example', 'f@x.example'], ['not-an-address']]) {
      const res = await env.call('POST', pdfPath(b.id, doc.id, 'email'), { key: a.live, body: { to } });
      expect(res.status).toBe(400);
      expect(res.body.reason).toBe('validation');
      expect(res.body.error).toMatch(/to/);
    }
    const missing = await env.call('POST', pdfPath(b.id, doc.id, 'email'), { key: a.live, body: {} });
    expect(missing.status).toBe(400);
  });

  it('is not available in the sandbox', async () => {
    const { b, doc } = await rendered(a.test);
    const res = await env.call('POST', pdfPath(b.id, doc.id, 'email'), { key: a.test, body: { to: ['x@customer.example'] } });
    expect(res.status).toBe(503);
    expect(res.body.reason).toBe('unconfigured');
  });

  it('limits a key to 10 calls per minute (sliding window)', async () => {
    const key = await a.mint({ mode: 'live' });
    const b = await env.business(key.secret);
    const doc = await issueDoc(env, key.secret, b.id);
    await renderRunner(env).runDue('live');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await env.call('POST', pdfPath(b.id, doc.id, 'email'), { key: key.secret, body: { to: [`r${i}@customer.example`] } });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.body.reason).toBe('rate_limited');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    env.clock.advance(60_001);
    const later = await env.call('POST', pdfPath(b.id, doc.id, 'email'), { key: key.secret, body: { to: ['later@customer.example'] } });
    expect(later.status).toBe(200);
  });

  it('answers 502 and hands nothing out when the mail server is down', async () => {
    const closed = await startSmtp([]);
    const port = closed.port;
    await new Promise<void>((resolve) => closed.server.close(() => resolve()));
    const env2 = await createTestEnv({
      env: { DATA_DIR: tempDataDir(), SMTP_HOST: '127.0.0.1', SMTP_PORT: String(port), SMTP_FROM: 'no-reply@pinkas.example' },
    });
    try {
      const a2 = await env2.account();
      const b = await env2.business(a2.live);
      const doc = await issueDoc(env2, a2.live, b.id);
      await renderRunner(env2).runDue('live');
      const res = await env2.call('POST', pdfPath(b.id, doc.id, 'email'), { key: a2.live, body: { to: ['x@customer.example'] } });
      expect(res.status).toBe(502);
      expect(res.body.reason).toBe('provider');
      const [row] = await env2.sql<any>('live', `SELECT origin_handed_out_at, print_count FROM documents WHERE id = '${doc.id}'`);
      expect(row.origin_handed_out_at).toBeNull();
      expect(row.print_count).toBe(0);
    } finally {
      await env2.close();
    }
  });
});
