/** The HTTP client of the digital donation system (the wire format and why it is an assumption: protocol.ts). */
import type { DonationsConfig } from '../platform/config.ts';
import { classifyReportAnswer, reportRequestBody } from './protocol.ts';
import { DonationTransportError, type DonationReporter, type DonationReportInput, type DonationReportResult } from './provider.ts';
import { callJson } from '../platform/json-call.ts';

export class DonationSystemClient implements DonationReporter {
  readonly kind = 'donation-system' as const;

  constructor(
    private readonly cfg: NonNullable<DonationsConfig['live']>,
    private readonly timeoutMs: number,
  ) {}

  async report(input: DonationReportInput): Promise<DonationReportResult> {
    const res = await this.send(`${this.cfg.baseUrl}/donation-reports`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${this.cfg.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'idempotency-key': input.reference,
      },
      body: JSON.stringify(reportRequestBody(input)),
    });
    return classifyReportAnswer(res.status, res.json);
  }

  private send(url: string, init: RequestInit): Promise<{ status: number; json: unknown }> {
    return callJson(url, init, {
      timeoutMs: this.timeoutMs,
      service: 'the donation system',
      fail: (message, kind) => new DonationTransportError(message, kind),
    });
  }
}
