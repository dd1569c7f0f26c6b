/**
 * Reporting donation receipts to the Tax Authority's digital donation system (issue 30 step 3; israel-tax.md
 * §7): after issue the `document.donation_report` job reports each 405 (the sandbox to the simulator), the
 * report number is stored once, printed beside the receipt's number (the PDF waits for it), and a credited
 * 405 reports its cancellation. Live without configuration stays pending and says `unconfigured`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { JobRunner, getJob } from '../../src/platform/jobs.ts';
import { allJobHandlers } from '../../src/domains.ts';
import { CANCELLATION_WAIT_MS, DONATION_MAX_ATTEMPTS, UNCONFIGURED_RECHECK_MS, donationBackoffMs } from '../../src/donations/lifecycle.ts';
import { renderRunner, tempDataDir } from '../prints/helpers.ts';
import { pdfText } from '../pdf/extract-text.ts';

let env: TestEnv;
let a: TestAccount;
const runner = () => new JobRunner({ databases: env.s.databases, clock: env.clock, logger: env.s.logger }, allJobHandlers(env.s));
beforeAll(async () => {
  env = await createTestEnv({ env: { DATA_DIR: tempDataDir(), PDF_DONATION_REPORT_WAIT_MS: '60000' } });
  a = await env.account();
});
afterAll(async () => env?.close());

const APPROVAL = { number: '4512345', validFrom: '2026-01-01', validTo: '2026-12-31' };
const base = (bid: string) => `/v1/businesses/${bid}`;
const ngo = (key: string) => env.business(key, { name: 'עמותת שולחן פתוח', taxId: TAX_IDS.ngo, dealerType: 'ngo', section46Approval: APPROVAL });
const SIM_NUMBER = /^SIM-\d{12}$/;

async function issue405(key: string, bid: string, amount: number): Promise<any> {
  const body = { docType: 405, party: { name: 'ישראל ישראלי', taxId: TAX_IDS.person2 }, payments: [{ method: 'transfer', amount }] };
  const d = await env.call('POST', `${base(bid)}/documents`, { key, body });
  expect(d.status, JSON.stringify(d.body)).toBe(201);
  const i = await env.call('POST', `${base(bid)}/documents/${d.body.document.id}/issue`, { key });
  expect(i.status, JSON.stringify(i.body)).toBe(201);
  return i.body.document;
}
const reportOf = async (key: string, bid: string, id: string) => {
  const r = await env.call('GET', `${base(bid)}/documents/${id}/donation-report`, { key });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.donationReport;
};
const events = async (mode: 'live' | 'sandbox', event: string, documentId: string) =>
  (await env.sql<{ data: any }>(mode, `SELECT data FROM outbox_events WHERE event = '${event}' ORDER BY created_at, id`))
    .map((r) => r.data)
    .filter((d) => d.documentId === documentId);
const print = (key: string, bid: string, id: string) => env.call('POST', `${base(bid)}/documents/${id}/print`, { key, body: { kind: 'copy' } });

describe('an ngo in the sandbox', () => {
  let bid: string;
  let receipt: any;
  let reportNumber: string;
  beforeAll(async () => {
    bid = (await ngo(a.test)).id;
    receipt = await issue405(a.test, bid, 36_000);
  });

  it('issues a 405 whose report is pending and whose PDF waits for the report number', async () => {
    expect(await reportOf(a.test, bid, receipt.id)).toMatchObject({ kind: 'donation', status: 'pending', reportNumber: null, error: null });
    expect(await getJob(env.db.sandbox.db, 'document.donation_report', receipt.id)).toMatchObject({ attempts: 0, doneAt: null });
    // The render runs first and waits (without using an attempt): nothing to print yet.
    await renderRunner(env).runDue('sandbox');
    const early = await print(a.test, bid, receipt.id);
    expect(early.status).toBe(409);
    expect(early.body.reason).toBe('pdf_pending');
    expect((await getJob(env.db.sandbox.db, 'document.render', receipt.id))!.attempts).toBe(0);
  });

  it('the job reports it to the simulator: the number is stored once, with document.donation_reported', async () => {
    await runner().runDue('sandbox');
    const r = await reportOf(a.test, bid, receipt.id);
    expect(r).toMatchObject({ kind: 'donation', status: 'reported', cancelsReportNumber: null, error: null, decidedAt: env.clock.now().toISOString() });
    expect(r.reportNumber).toMatch(SIM_NUMBER);
    reportNumber = r.reportNumber;
    expect(await events('sandbox', 'document.donation_reported', receipt.id)).toEqual([
      { documentId: receipt.id, kind: 'donation', reportNumber, cancelsReportNumber: null },
    ]);
    const [audit] = await env.sql<{ n: number }>(
      'sandbox',
      `SELECT count(*) AS n FROM audit_log WHERE action = 'document.donation_reported' AND entity_id = '${receipt.id}'`,
    );
    expect(Number(audit.n)).toBe(1);
    // Stored once: the database refuses to change or delete a report that has its answer.
    await expect(env.sql('sandbox', `UPDATE donation_reports SET report_number = 'X-1' WHERE document_id = '${receipt.id}'`)).rejects.toThrow();
    await expect(env.sql('sandbox', `DELETE FROM donation_reports WHERE document_id = '${receipt.id}'`)).rejects.toThrow();
  });

  it('prints the report number beside the receipt number, and the section 46 approval', async () => {
    env.clock.advance(3_000);
    await runner().runDue('sandbox');
    const copy = await print(a.test, bid, receipt.id);
    expect(copy.status, JSON.stringify(copy.body)).toBe(200);
    const text = await pdfText(copy.raw);
    for (const phrase of ["קבלה על תרומה מס' 1", `מספר דיווח למערכת התרומות: ${reportNumber}`, 'אישור לעניין סעיף 46 לפקודת מס הכנסה: 4512345', '₪360.00']) {
      expect(text).toContain(phrase);
    }
  });

  it('a credit of the 405 reports the cancellation, naming the donation report it cancels, and prints its own number', async () => {
    const credit = await env.call('POST', `${base(bid)}/documents/${receipt.id}/credit-note`, { key: a.test, body: { reason: 'התרומה הוחזרה' } });
    expect(credit.status, JSON.stringify(credit.body)).toBe(201);
    const id = credit.body.document.id;
    expect(await reportOf(a.test, bid, id)).toMatchObject({ kind: 'cancellation', status: 'pending' });
    await runner().runDue('sandbox');
    const r = await reportOf(a.test, bid, id);
    expect(r).toMatchObject({ kind: 'cancellation', status: 'reported', cancelsReportNumber: reportNumber });
    expect(r.reportNumber).toMatch(SIM_NUMBER);
    expect(r.reportNumber).not.toBe(reportNumber);
    expect(await events('sandbox', 'document.donation_reported', id)).toEqual([
      { documentId: id, kind: 'cancellation', reportNumber: r.reportNumber, cancelsReportNumber: reportNumber },
    ]);
    env.clock.advance(3_000);
    await runner().runDue('sandbox');
    const text = await pdfText((await print(a.test, bid, id)).raw);
    expect(text).toContain(`מספר דיווח למערכת התרומות: ${r.reportNumber}`);
    expect(text).toContain("ביטול של: קבלה על תרומה מס' 1");
  });

  it('a credit issued before its donation was reported waits for that report, then names it', async () => {
    const early = await issue405(a.test, bid, 12_000);
    const credit = await env.call('POST', `${base(bid)}/documents/${early.id}/credit-note`, { key: a.test, body: {} });
    expect(credit.status, JSON.stringify(credit.body)).toBe(201);
    const id = credit.body.document.id;
    // The cancellation's job runs first: it waits (no attempt used) while the donation's report is pending.
    await env.sql('sandbox', `UPDATE jobs SET run_at = run_at - interval '1 second' WHERE kind = 'document.donation_report' AND ref_id = '${id}'`);
    await runner().runDue('sandbox');
    const donation = await reportOf(a.test, bid, early.id);
    expect(donation.status).toBe('reported');
    expect(await reportOf(a.test, bid, id)).toMatchObject({ status: 'pending', error: 'waiting for the report number of the donation it cancels' });
    expect((await getJob(env.db.sandbox.db, 'document.donation_report', id))!.attempts).toBe(0);
    env.clock.advance(CANCELLATION_WAIT_MS);
    await runner().runDue('sandbox');
    expect(await reportOf(a.test, bid, id)).toMatchObject({ kind: 'cancellation', status: 'reported', cancelsReportNumber: donation.reportNumber });
  });

  it('a refusal is final: document.donation_report_failed, and the PDF says it was not reported', async () => {
    const refused = await issue405(a.test, bid, 10_097);
    await runner().runDue('sandbox');
    const r = await reportOf(a.test, bid, refused.id);
    expect(r).toMatchObject({ status: 'refused', reportNumber: null });
    expect(r.error).toMatch(/^D404: /);
    expect(await events('sandbox', 'document.donation_report_failed', refused.id)).toEqual([
      { documentId: refused.id, kind: 'donation', status: 'refused', code: 'D404', message: expect.stringContaining('population registry') },
    ]);
    expect(await getJob(env.db.sandbox.db, 'document.donation_report', refused.id)).toMatchObject({ attempts: 1, failedAt: null });
    // The render may have run before the answer and waits its next look (3 s).
    env.clock.advance(3_000);
    await runner().runDue('sandbox');
    const text = await pdfText((await print(a.test, bid, refused.id)).raw);
    expect(text).toContain('מספר דיווח למערכת התרומות: לא דווח');
    // Its credit has no report to cancel: it fails without asking the system.
    const credit = await env.call('POST', `${base(bid)}/documents/${refused.id}/credit-note`, { key: a.test, body: {} });
    await runner().runDue('sandbox');
    expect(await reportOf(a.test, bid, credit.body.document.id)).toMatchObject({ kind: 'cancellation', status: 'failed', reportNumber: null });
  });

  it('transport failures are retried with backoff, the last one shown, then reported', async () => {
    const flaky = await issue405(a.test, bid, 10_099);
    await runner().runDue('sandbox');
    expect(await reportOf(a.test, bid, flaky.id)).toMatchObject({ status: 'pending', error: expect.stringMatching(/^attempt 1: http_503/) });
    env.clock.advance(donationBackoffMs(1));
    await runner().runDue('sandbox');
    expect((await reportOf(a.test, bid, flaky.id)).error).toMatch(/^attempt 2: /);
    env.clock.advance(donationBackoffMs(2));
    await runner().runDue('sandbox');
    expect(await reportOf(a.test, bid, flaky.id)).toMatchObject({ status: 'reported', error: null });
  });

  it('failed when the system never answers until the retries run out', async () => {
    const down = await issue405(a.test, bid, 10_098);
    for (let attempt = 1; attempt <= DONATION_MAX_ATTEMPTS; attempt++) {
      await runner().runDue('sandbox');
      env.clock.advance(donationBackoffMs(attempt));
    }
    const r = await reportOf(a.test, bid, down.id);
    expect(r).toMatchObject({ status: 'failed', reportNumber: null });
    expect(r.error).toMatch(/10 attempts: connection reset by the donation system/);
    expect((await events('sandbox', 'document.donation_report_failed', down.id)).map((e) => e.status)).toEqual(['failed']);
    // Asked again: back to pending, the job re-armed from its first attempt, audited; a second ask is refused.
    const again = await env.call('POST', `${base(bid)}/documents/${down.id}/donation-report`, { key: a.test });
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    expect(again.body.donationReport).toMatchObject({ status: 'pending', error: null, decidedAt: null, reportNumber: null });
    expect(await getJob(env.db.sandbox.db, 'document.donation_report', down.id)).toMatchObject({ attempts: 0, failedAt: null, doneAt: null });
    expect(await reportOf(a.test, bid, down.id)).toMatchObject({ status: 'pending' });
    const twice = await env.call('POST', `${base(bid)}/documents/${down.id}/donation-report`, { key: a.test });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toContain('is pending: it is already being reported; only a failed report is asked again');
    const [audit] = await env.sql<{ n: number }>(
      'sandbox',
      `SELECT count(*) AS n FROM audit_log WHERE action = 'document.donation_report_retry' AND entity_id = '${down.id}'`,
    );
    expect(Number(audit.n)).toBe(1);
    // A report number is final.
    const reported = await env.call('POST', `${base(bid)}/documents/${receipt.id}/donation-report`, { key: a.test });
    expect(reported.status).toBe(409);
    expect(reported.body.error).toContain('it is reported: its report number is final');
  });

  it('other documents have no donation report', async () => {
    const draft = await env.call('POST', `${base(bid)}/documents`, {
      key: a.test,
      body: { docType: 405, party: { name: 'x', taxId: TAX_IDS.person }, payments: [{ method: 'cash', amount: 100 }] },
    });
    const r = await env.call('GET', `${base(bid)}/documents/${draft.body.document.id}/donation-report`, { key: a.test });
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('donation report not found: only an issued donation receipt (405) is reported');
  });
});

describe('live without the donation system configured', () => {
  it('stays pending and says unconfigured, using no attempt; the PDF waits its bound and prints no number', async () => {
    const bid = (await ngo(a.live)).id;
    const receipt = await issue405(a.live, bid, 50_000);
    await runner().runDue('live');
    const r = await reportOf(a.live, bid, receipt.id);
    expect(r).toMatchObject({ status: 'pending', reportNumber: null });
    expect(r.error).toMatch(/^unconfigured: reporting donations .* set DONATIONS_API_URL and DONATIONS_API_KEY/);
    const job = await getJob(env.db.live.db, 'document.donation_report', receipt.id);
    expect(job).toMatchObject({ attempts: 0, failedAt: null, doneAt: null });
    expect(Date.parse(job!.runAt) - env.clock.now().getTime()).toBe(UNCONFIGURED_RECHECK_MS);
    expect(await events('live', 'document.donation_reported', receipt.id)).toEqual([]);
    // Past the bound the PDF is rendered, saying the number has not arrived; it never makes one up.
    env.clock.advance(60_000);
    await renderRunner(env).runDue('live');
    const copy = await print(a.live, bid, receipt.id);
    expect(copy.status, JSON.stringify(copy.body)).toBe(200);
    const text = await pdfText(copy.raw);
    expect(text).toContain('מספר דיווח למערכת התרומות: טרם התקבל');
    expect(text).not.toMatch(/SIM-\d/);
    expect((await reportOf(a.live, bid, receipt.id)).status).toBe('pending');
  });
});
