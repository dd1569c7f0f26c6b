/**
 * The HTTP client of the digital donation system against a local server speaking the assumed wire format
 * (src/donations/protocol.ts): what it sends, how it reads answers, timeouts; and live mode configured with
 * DONATIONS_API_URL / DONATIONS_API_KEY reporting a 405 and its cancellation through it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DonationSystemClient } from '../../src/donations/client.ts';
import { DonationTransportError, type DonationReportInput } from '../../src/donations/provider.ts';
import { JobRunner } from '../../src/platform/jobs.ts';
import { allJobHandlers } from '../../src/domains.ts';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: any;
}
/** The next answers, in order; when none is left: 201 with a number counted from 1. */
const script: ({ status: number; body: unknown } | 'hang')[] = [];
const seen: Seen[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: raw ? JSON.parse(raw) : null });
      const next = script.shift() ?? { status: 201, body: { reportNumber: `TR-${seen.length}` } };
      if (next === 'hang') return; // never answers; the client's timeout ends it
      res.writeHead(next.status, { 'content-type': 'application/json' }).end(JSON.stringify(next.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const input: DonationReportInput = {
  kind: 'donation',
  reference: 'doc_1',
  institutionTaxId: TAX_IDS.ngo,
  approvalNumber: '4512345',
  receiptType: 405,
  receiptNumber: 7,
  receiptDate: '2026-03-01',
  donorId: TAX_IDS.person2,
  donorName: 'ישראל ישראלי',
  amount: 36_000,
  cancelsReportNumber: null,
};

describe('DonationSystemClient', () => {
  const client = () => new DonationSystemClient({ baseUrl, apiKey: 'secret-key' }, 300);

  it('POSTs the report with its key and idempotency key, and reads the report number', async () => {
    seen.length = 0;
    script.push({ status: 201, body: { reportNumber: '2026-000123' } });
    expect(await client().report(input)).toEqual({ status: 'reported', reportNumber: '2026-000123' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/donation-reports' });
    expect(seen[0].headers).toMatchObject({ authorization: 'Bearer secret-key', 'idempotency-key': 'doc_1', 'content-type': 'application/json' });
    expect(seen[0].body).toMatchObject({ type: 'donation', donor: { idNumber: TAX_IDS.person2 }, amount: '360.00', receipt: { number: '7' } });
  });

  it('a refusal is an answer; an outage, a refused key and a silence are failures to retry', async () => {
    script.push({ status: 422, body: { code: 'E17', message: 'unknown donor' } });
    expect(await client().report(input)).toEqual({ status: 'refused', code: 'E17', message: 'unknown donor' });
    script.push({ status: 503, body: {} });
    await expect(client().report(input)).rejects.toMatchObject({ name: 'DonationTransportError', code: 'http_503' });
    script.push({ status: 401, body: {} });
    await expect(client().report(input)).rejects.toMatchObject({ code: 'http_401' });
    script.push('hang');
    await expect(client().report(input)).rejects.toThrow(DonationTransportError);
    const unreachable = new DonationSystemClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' }, 300);
    await expect(unreachable.report(input)).rejects.toMatchObject({ code: 'network' });
  });
});

describe('live mode configured', () => {
  let env: TestEnv;
  let a: TestAccount;
  beforeAll(async () => {
    env = await createTestEnv({ env: { DONATIONS_API_URL: baseUrl, DONATIONS_API_KEY: 'live-key' } });
    a = await env.account();
  });
  afterAll(async () => env?.close());

  it('reports a live 405 and its cancellation to the configured system, and stores its numbers', async () => {
    script.length = 0;
    seen.length = 0;
    const b = await env.business(a.live, {
      taxId: TAX_IDS.ngo,
      dealerType: 'ngo',
      section46Approval: { number: '4512345', validFrom: '2026-01-01', validTo: '2026-12-31' },
    });
    const call = (method: string, path: string, body?: unknown) => env.call(method, `/v1/businesses/${b.id}${path}`, { key: a.live, body });
    const d = await call('POST', '/documents', {
      docType: 405,
      party: { name: 'תורם', taxId: TAX_IDS.person3 },
      payments: [{ method: 'cash', amount: 18_000 }],
    });
    const issued = await call('POST', `/documents/${d.body.document.id}/issue`);
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const runner = new JobRunner({ databases: env.s.databases, clock: env.clock, logger: env.s.logger }, allJobHandlers(env.s));
    await runner.runDue('live');
    const id = issued.body.document.id;
    const report = await call('GET', `/documents/${id}/donation-report`);
    expect(report.body.donationReport).toMatchObject({ status: 'reported', reportNumber: 'TR-1' });
    expect(seen.map((s) => [s.headers.authorization, s.body.type, s.body.donor.idNumber, s.body.amount])).toEqual([
      ['Bearer live-key', 'donation', TAX_IDS.person3, '180.00'],
    ]);
    const credit = await call('POST', `/documents/${id}/credit-note`, {});
    expect(credit.status, JSON.stringify(credit.body)).toBe(201);
    await runner.runDue('live');
    const cancelled = await call('GET', `/documents/${credit.body.document.id}/donation-report`);
    expect(cancelled.body.donationReport).toMatchObject({ kind: 'cancellation', status: 'reported', reportNumber: 'TR-2', cancelsReportNumber: 'TR-1' });
    expect(seen[1].body).toMatchObject({ type: 'cancellation', cancelsReportNumber: 'TR-1', amount: '180.00', reference: credit.body.document.id });
  });
});
