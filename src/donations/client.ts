/** The HTTP client of the digital donation system (the wire format and why it is an assumption: protocol.ts). */
import type { DonationsConfig } from '../platform/config.ts';
import { classifyReportAnswer, reportRequestBody } from './protocol.ts';
import { DonationTransportError, type DonationReporter, type DonationReportInput, type DonationReportResult } from './provider.ts';

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

  private async send(url: string, init: RequestInit): Promise<{ status: number; json: unknown }> {
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs), redirect: 'manual' });
    } catch (err) {
      const e = err as Error;
      if (e.name === 'TimeoutError' || e.name === 'AbortError') {
        throw new DonationTransportError(`the donation system did not answer within ${this.timeoutMs} ms`, 'timeout');
      }
      throw new DonationTransportError(`cannot reach the donation system: ${e.message}`, 'network');
    }
    let text: string;
    try {
      text = await res.text();
    } catch {
      throw new DonationTransportError(`the donation system's answer was cut off or exceeded ${this.timeoutMs} ms`, 'timeout');
    }
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, json };
  }
}
