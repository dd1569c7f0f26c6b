// The pure parts of donation receipts and their reports: the rules at issue (documents/donation.ts), what a
// report says (report-state.ts), the assumed wire format (protocol.ts), the simulator and the configuration.
import { describe, expect, it } from 'vitest';
import { approvalInForce, checkDonationAtIssue, donationJobs, donationSnapshotPart, donorIdProblem } from '../../src/documents/donation.ts';
import { reportInputOf, reportView } from '../../src/donations/report-state.ts';
import { classifyReportAnswer, reportRequestBody } from '../../src/donations/protocol.ts';
import { DonationSimulator, simulatedReportNumber, simulatorBranch } from '../../src/donations/simulator.ts';
import { DonationTransportError, type DonationReportInput } from '../../src/donations/provider.ts';
import { donationsConfig } from '../../src/platform/config-donations.ts';
import { donationReportWait } from '../../src/prints/render-job.ts';
import type { DocumentRow } from '../../src/documents/snapshot.ts';
import { infoLines, titleLine, titleSecondLine } from '../../src/pdf/wording.ts';
import { sampleLanguageModel } from '../../src/pdf/samples.ts';

const APPROVAL = { number: '4512345', validFrom: '2026-01-01', validTo: '2026-12-31' };

describe('a 405 at draft and issue', () => {
  it('is issued on a day inside the approval, both ends included', () => {
    expect(['2025-12-31', '2026-01-01', '2026-07-01', '2026-12-31', '2027-01-01'].map((d) => approvalInForce(APPROVAL, d))).toEqual([
      false,
      true,
      true,
      true,
      false,
    ]);
    expect(approvalInForce(null, '2026-07-01')).toBe(false);
  });

  it('is refused 422 donation_approval_missing without one in force, 400 without a donor ID; other types pass', () => {
    const party = { taxId: '039337423' };
    expect(() => checkDonationAtIssue({ section46Approval: APPROVAL }, { docType: 405, documentDate: '2026-03-01' }, party)).not.toThrow();
    const refusal = (f: () => void) => {
      try {
        f();
      } catch (e) {
        return e as { status: number; reason: string; message: string };
      }
      throw new Error('not refused');
    };
    expect(refusal(() => checkDonationAtIssue({ section46Approval: APPROVAL }, { docType: 405, documentDate: '2027-01-02' }, party))).toMatchObject({
      status: 422,
      reason: 'donation_approval_missing',
      message:
        "a 405 donation receipt dated 2027-01-02 needs the organisation's section 46 approval in force on that day; its approval 4512345 is valid from 2026-01-01 to 2026-12-31",
    });
    expect(refusal(() => checkDonationAtIssue({ section46Approval: APPROVAL }, { docType: 405, documentDate: '2026-03-01' }, { taxId: null }))).toMatchObject({
      status: 400,
      reason: 'validation',
    });
    expect(() => checkDonationAtIssue({ section46Approval: null }, { docType: 400, documentDate: '2026-03-01' }, null)).not.toThrow();
    expect(donorIdProblem(405, null)).toMatch(/needs the donor's ID number/);
    expect(donorIdProblem(400, null)).toBeNull();
  });

  it('freezes the approval into a 405 only, and enqueues its report', () => {
    expect(donationSnapshotPart({ section46Approval: APPROVAL }, 405)).toEqual({ section46: APPROVAL });
    expect(donationSnapshotPart({ section46Approval: APPROVAL }, 400)).toEqual({});
    expect(donationJobs(405)).toEqual([{ kind: 'document.donation_report' }]);
    expect(donationJobs(320)).toEqual([]);
  });
});

const issued405 = (over: Partial<DocumentRow> = {}): DocumentRow =>
  ({
    id: 'doc_1',
    docType: 405,
    docNumber: 7,
    linkedDocumentId: null,
    issuedAt: '2026-03-01T08:00:00.000Z',
    snapshot: {
      docType: 405,
      documentDate: '2026-03-01',
      dealer: { name: 'עמותה', taxId: '580123453', dealerType: 'ngo' },
      party: { name: 'ישראל ישראלי', taxId: '039337423' },
      totals: { totalExVat: 36_000, vatAmount: 0, totalIncVat: 36_000, discountAmount: 0, withholdingAmount: 0 },
      section46: APPROVAL,
    },
    ...over,
  }) as unknown as DocumentRow;

const input: DonationReportInput = {
  kind: 'donation',
  reference: 'doc_1',
  institutionTaxId: '580123453',
  approvalNumber: '4512345',
  receiptType: 405,
  receiptNumber: 7,
  receiptDate: '2026-03-01',
  donorId: '039337423',
  donorName: 'ישראל ישראלי',
  amount: 36_000,
  cancelsReportNumber: null,
};

describe('what a report says', () => {
  it('from the frozen snapshot: institution, approval, receipt, donor, the amount; a credit is a cancellation of a positive amount', () => {
    expect(reportInputOf(issued405(), null)).toEqual(input);
    const credit = issued405({ id: 'doc_2', docNumber: 8, linkedDocumentId: 'doc_1' });
    (credit.snapshot as any).totals = { ...(credit.snapshot as any).totals, totalIncVat: -36_000 };
    expect(reportInputOf(credit, 'SIM-1')).toMatchObject({
      kind: 'cancellation',
      reference: 'doc_2',
      receiptNumber: 8,
      amount: 36_000,
      cancelsReportNumber: 'SIM-1',
    });
    expect(reportInputOf(issued405({ snapshot: { ...(issued405().snapshot as any), section46: undefined } }), null)).toBeNull();
  });

  it('reads pending until the job writes a row', () => {
    expect(reportView(issued405(), undefined)).toEqual({
      documentId: 'doc_1',
      kind: 'donation',
      status: 'pending',
      reportNumber: null,
      cancelsReportNumber: null,
      error: null,
      requestedAt: '2026-03-01T08:00:00.000Z',
      decidedAt: null,
    });
  });

  it('the render waits for a pending report within its bound only', () => {
    const at = (s: number) => new Date(Date.parse('2026-03-01T08:00:00.000Z') + s * 1000);
    expect(donationReportWait(issued405(), { pending: true }, at(0), 60_000)).toBe(3_000);
    expect(donationReportWait(issued405(), { pending: true }, at(59), 60_000)).toBe(1_000);
    expect(donationReportWait(issued405(), { pending: true }, at(60), 60_000)).toBeNull();
    expect(donationReportWait(issued405(), { pending: false }, at(0), 60_000)).toBeNull();
    expect(donationReportWait(issued405(), null, at(0), 60_000)).toBeNull();
  });
});

describe('the assumed wire format (protocol.ts)', () => {
  it('sends the report as JSON with the amount in shekels as a string', () => {
    expect(reportRequestBody({ ...input, kind: 'cancellation', cancelsReportNumber: 'R-1', amount: 10_005 })).toEqual({
      type: 'cancellation',
      reference: 'doc_1',
      institution: { taxId: '580123453', section46Approval: '4512345' },
      receipt: { docType: 405, number: '7', date: '2026-03-01' },
      donor: { idNumber: '039337423', name: 'ישראל ישראלי' },
      amount: '100.05',
      currency: 'ILS',
      cancelsReportNumber: 'R-1',
    });
  });

  it('classifies answers: a number, a refusal, or a failure to retry', () => {
    expect(classifyReportAnswer(201, { reportNumber: '2026-000123' })).toEqual({ status: 'reported', reportNumber: '2026-000123' });
    expect(classifyReportAnswer(422, { code: 'E17', message: 'unknown donor' })).toEqual({ status: 'refused', code: 'E17', message: 'unknown donor' });
    expect(classifyReportAnswer(409, null)).toEqual({ status: 'refused', code: 'http_409', message: 'refused with HTTP 409' });
    for (const [status, body] of [
      [200, {}],
      [200, { reportNumber: 'has spaces' }],
      [401, null],
      [503, null],
      [302, null],
    ] as const) {
      expect(() => classifyReportAnswer(status, body)).toThrow(DonationTransportError);
    }
  });
});

describe('the simulator', () => {
  it('reports with a deterministic number that never passes for a real one', async () => {
    const sim = new DonationSimulator();
    const a = await sim.report(input);
    expect(a).toEqual({ status: 'reported', reportNumber: simulatedReportNumber(input) });
    expect(simulatedReportNumber(input)).toMatch(/^SIM-\d{12}$/);
    expect(await sim.report(input)).toEqual(a);
    expect(simulatedReportNumber({ ...input, reference: 'doc_9' })).not.toBe(simulatedReportNumber(input));
  });

  it('takes its other branches by the last agorot, and refuses a cancellation without its donation report', async () => {
    expect([36_097, 36_098, 36_099, 36_000].map((amount) => simulatorBranch({ ...input, amount }))).toEqual([{ refuse: 'D404' }, 'fail', 'flaky', 'report']);
    expect(simulatorBranch({ ...input, kind: 'cancellation' })).toEqual({ refuse: 'D409' });
    const sim = new DonationSimulator();
    const flaky = { ...input, amount: 36_099 };
    await expect(sim.report(flaky)).rejects.toThrow(/HTTP 503 \(simulated, try 1\)/);
    await expect(sim.report(flaky)).rejects.toThrow(/try 2/);
    expect((await sim.report(flaky)).status).toBe('reported');
    expect(await sim.report({ ...input, amount: 36_097 })).toMatchObject({ status: 'refused', code: 'D404' });
  });
});

describe('the printed page', () => {
  it('titles a 405 and prints its approval (a line per language) and its report number, pending or missing said in words', () => {
    const m = (language: 'he' | 'en' | 'he+en', donationReport: { number: string | null; pending: boolean } = { number: 'R-77', pending: false }) =>
      sampleLanguageModel(405, language, undefined, { docNumber: 3, donationReport });
    expect(titleLine(m('he'), 'origin')).toBe("קבלה על תרומה מס' 3");
    expect(titleLine(m('en'), 'origin')).toBe('Donation Receipt No. 3');
    expect(titleSecondLine(m('he+en'), 'origin')).toBe('Donation Receipt No. 3');
    expect(infoLines(m('he'))).toEqual(['אישור לעניין סעיף 46 לפקודת מס הכנסה: 4512345, בתוקף 01/01/2026 - 31/12/2026', 'מספר דיווח למערכת התרומות: R-77']);
    expect(infoLines(m('en'))).toEqual([
      'Section 46 approval (Income Tax Ordinance): 4512345, valid 1 Jan 2026 - 31 Dec 2026',
      'Donation system report number: R-77',
    ]);
    expect(infoLines(m('he+en'))).toHaveLength(3);
    expect(infoLines(m('he', { number: null, pending: true })).at(-1)).toBe('מספר דיווח למערכת התרומות: טרם התקבל');
    expect(infoLines(m('en', { number: null, pending: false })).at(-1)).toBe('Donation system report number: not reported');
  });
});

describe('configuration', () => {
  it('live is configured by DONATIONS_API_URL and DONATIONS_API_KEY together', () => {
    expect(donationsConfig({})).toEqual({ live: null, timeoutMs: 10_000 });
    expect(donationsConfig({ DONATIONS_API_URL: 'https://donations.example/api/', DONATIONS_API_KEY: 'k', DONATIONS_TIMEOUT_MS: '500' })).toEqual({
      live: { baseUrl: 'https://donations.example/api', apiKey: 'k' },
      timeoutMs: 500,
    });
    expect(() => donationsConfig({ DONATIONS_API_KEY: 'k' })).toThrow(/DONATIONS_API_URL.*required/);
    expect(() => donationsConfig({ DONATIONS_API_URL: 'https://x.example' })).toThrow(/DONATIONS_API_KEY.*required/);
    expect(() => donationsConfig({ DONATIONS_API_URL: 'ftp://x.example', DONATIONS_API_KEY: 'k' })).toThrow(/not an http\(s\) URL/);
  });
});
