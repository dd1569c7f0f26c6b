import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';
import { BURST_REQUESTS, allocationWait, renderBackoffMs, renderYields } from '../../src/prints/render-job.ts';
import { documentEmail } from '../../src/prints/email.ts';
import type { DocumentRow } from '../../src/documents/snapshot.ts';
import type { DocumentSnapshot } from '../../src/documents/snapshot-types.ts';

const base = { PINKAS_ENV: 'test', DATA_DIR: '/tmp/x' };

describe('prints configuration', () => {
  it('has defaults that work on a fresh machine', () => {
    const c = loadConfig(base).prints;
    expect(c).toEqual({
      signingP12: null,
      allocationWaitMs: 60_000,
      donationReportWaitMs: 60_000,
      pendingRetryAfterSeconds: 2,
      emailPerMinute: 10,
      smtp: null,
      // One render thread fewer than the cores, at least one.
      workers: Math.max(1, availableParallelism() - 1),
      yieldMs: 30_000,
    });
  });

  it('reads PDF_DONATION_REPORT_WAIT_MS, and donations live only with both DONATIONS_API_URL and DONATIONS_API_KEY', () => {
    expect(loadConfig({ ...base, PDF_DONATION_REPORT_WAIT_MS: '5000' }).prints.donationReportWaitMs).toBe(5_000);
    expect(loadConfig(base).donations).toEqual({ live: null, timeoutMs: 10_000 });
    expect(loadConfig({ ...base, DONATIONS_API_URL: 'https://d.example', DONATIONS_API_KEY: 'k' }).donations.live).toEqual({
      baseUrl: 'https://d.example',
      apiKey: 'k',
    });
  });

  it('reads PDF_YIELD_MS: 0 never yields; a bad value is refused', () => {
    expect(loadConfig({ ...base, PDF_YIELD_MS: '0' }).prints.yieldMs).toBe(0);
    expect(loadConfig({ ...base, PDF_YIELD_MS: '5000' }).prints.yieldMs).toBe(5_000);
    expect(() => loadConfig({ ...base, PDF_YIELD_MS: '-1' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, PDF_YIELD_MS: 'soon' })).toThrow(ConfigError);
  });

  it('renders yield to a burst of requests, until the oldest PDF has waited PDF_YIELD_MS', () => {
    expect(BURST_REQUESTS).toBe(4);
    const cases: [number, number, number, boolean][] = [
      // requests in flight, waited, yieldMs, yields
      [0, 0, 30_000, false],
      [0, 29_999, 30_000, false],
      // A client sending one request after another, or a few at once, is no burst.
      [1, 0, 30_000, false],
      [3, 0, 30_000, false],
      [4, 0, 30_000, true],
      [32, 29_999, 30_000, true],
      [32, 30_000, 30_000, false],
      [32, 90_000, 30_000, false],
      [32, 0, 0, false],
      // A job due in the future of this process's clock (a retry just scheduled) has not waited: it yields.
      [5, -500, 30_000, true],
    ];
    for (const [requests, waitedMs, yieldMs, yields] of cases)
      expect(renderYields({ requests, waitedMs, yieldMs }), JSON.stringify({ requests, waitedMs, yieldMs })).toBe(yields);
  });

  it('reads PDF_WORKERS: 0 renders in the calling thread', () => {
    expect(loadConfig({ ...base, PDF_WORKERS: '0' }).prints.workers).toBe(0);
    expect(loadConfig({ ...base, PDF_WORKERS: '3' }).prints.workers).toBe(3);
  });

  it('reads SMTP settings, port by SMTP_SECURE', () => {
    const c = loadConfig({ ...base, SMTP_HOST: 'mail.example', SMTP_FROM: 'Pinkas <no-reply@example.com>' }).prints.smtp;
    expect(c).toEqual({ host: 'mail.example', port: 587, secure: false, user: null, password: null, from: 'Pinkas <no-reply@example.com>' });
    const tls = loadConfig({ ...base, SMTP_HOST: 'mail.example', SMTP_FROM: 'a@example.com', SMTP_SECURE: 'true', SMTP_USER: 'u', SMTP_PASSWORD: 'p' }).prints
      .smtp;
    expect(tls).toMatchObject({ port: 465, secure: true, user: 'u', password: 'p' });
  });

  it('names the variable of a bad value', () => {
    const bad = (env: Record<string, string>, variable: string) => {
      try {
        loadConfig({ ...base, ...env });
        throw new Error('accepted');
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        expect((err as ConfigError).variable).toBe(variable);
      }
    };
    bad({ SMTP_HOST: 'mail.example' }, 'SMTP_FROM');
    bad({ SMTP_HOST: 'mail.example', SMTP_FROM: 'nobody' }, 'SMTP_FROM');
    bad({ SMTP_HOST: 'mail.example', SMTP_FROM: 'a@example.com', SMTP_USER: 'u' }, 'SMTP_PASSWORD');
    bad({ SMTP_SECURE: 'yes' }, 'SMTP_SECURE');
    bad({ SMTP_HOST: 'mail.example', SMTP_FROM: 'a@example.com', SMTP_PORT: '99999' }, 'SMTP_PORT');
    bad({ PDF_SIGNING_P12_PATH: '/no/such/file.p12' }, 'PDF_SIGNING_P12_PATH');
    bad({ PDF_ALLOCATION_WAIT_MS: '-1' }, 'PDF_ALLOCATION_WAIT_MS');
    bad({ EMAIL_PER_MINUTE: '0' }, 'EMAIL_PER_MINUTE');
    bad({ PDF_WORKERS: '-1' }, 'PDF_WORKERS');
    bad({ PDF_WORKERS: '65' }, 'PDF_WORKERS');
  });

  it('accepts an existing P12 file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pinkas-cfg-'));
    const file = path.join(dir, 'cert.p12');
    writeFileSync(file, 'x');
    expect(loadConfig({ ...base, PDF_SIGNING_P12_PATH: file, PDF_SIGNING_P12_PASSWORD: 'pw' }).prints.signingP12).toEqual({ path: file, password: 'pw' });
  });
});

describe('render job timing', () => {
  const doc = (over: Partial<DocumentRow>) =>
    ({ allocationNumber: null, allocation: { status: 'pending' }, issuedAt: '2026-03-01T08:00:00.000Z', ...over }) as DocumentRow;

  it('waits for a pending allocation within the bound, checking every 3 s at most', () => {
    expect(allocationWait(doc({}), new Date('2026-03-01T08:00:00.000Z'), 60_000)).toBe(3_000);
    expect(allocationWait(doc({}), new Date('2026-03-01T08:00:59.000Z'), 60_000)).toBe(1_000);
    expect(allocationWait(doc({}), new Date('2026-03-01T08:01:00.000Z'), 60_000)).toBeNull();
    expect(allocationWait(doc({}), new Date('2026-03-01T08:00:00.000Z'), 0)).toBeNull();
  });

  it('does not wait when nothing is pending or the number is there', () => {
    const now = new Date('2026-03-01T08:00:01.000Z');
    expect(allocationWait(doc({ allocation: null }), now, 60_000)).toBeNull();
    expect(allocationWait(doc({ allocation: { status: 'granted' } as DocumentRow['allocation'] }), now, 60_000)).toBeNull();
    expect(allocationWait(doc({ allocationNumber: '123' }), now, 60_000)).toBeNull();
    expect(allocationWait(doc({ allocation: { status: 'failed' } as DocumentRow['allocation'] }), now, 60_000)).toBeNull();
  });

  it('backs off from 2 s doubling to 10 min', () => {
    expect([1, 2, 3, 4].map(renderBackoffMs)).toEqual([2_000, 4_000, 8_000, 16_000]);
    expect(renderBackoffMs(20)).toBe(600_000);
  });
});

describe('the email text', () => {
  it('is Hebrew, names the document and the dealer, carries the link, and escapes HTML', () => {
    const snap = {
      docType: 320,
      docNumber: 17,
      dealer: { name: 'חנות <הכל> בע"מ' },
      party: { name: 'דנה' },
    } as unknown as DocumentSnapshot;
    const m = documentEmail(snap, 'https://x.example/api/docs/abc/d.pdf');
    expect(m.subject).toBe('חשבונית מס / קבלה מס\' 17 מאת חנות <הכל> בע"מ');
    expect(m.text).toContain('שלום דנה,');
    expect(m.text).toContain('https://x.example/api/docs/abc/d.pdf');
    expect(m.html).toContain('dir="rtl"');
    expect(m.html).toContain('חנות &lt;הכל&gt; בע&quot;מ');
    expect(m.html).not.toContain('<הכל>');
  });
});
