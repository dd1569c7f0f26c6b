/**
 * The donation system's simulator, which the sandbox always reports to (live never does: without the
 * client's configuration a live report stays pending, docs/donations.md). Deterministic: the same report
 * gets the same number, and the amount's last two agorot take the other branches:
 *
 *   amount ends in   outcome
 *   .97              refused D404 (the donor's ID number is not known to the population registry)
 *   .98              transport failure, every time (retried, then `failed`)
 *   .99              transport failure on the first 2 tries (in this process), then reported
 *
 * A cancellation without the report number of the donation it cancels is refused D409, as the system would.
 */
import { createHash } from 'node:crypto';
import { DonationTransportError, type DonationReporter, type DonationReportInput, type DonationReportResult } from './provider.ts';

export const SIMULATOR_REFUSALS: Record<string, string> = {
  D404: "the donor's ID number is not known to the population registry (simulated)",
  D409: 'a cancellation must name the report number of the donation it cancels (simulated)',
};

export type DonationSimulatorBranch = 'report' | 'fail' | 'flaky' | { refuse: keyof typeof SIMULATOR_REFUSALS };

/** Which branch a report takes (pure; the table above). */
export function simulatorBranch(input: DonationReportInput): DonationSimulatorBranch {
  if (input.kind === 'cancellation' && !input.cancelsReportNumber) return { refuse: 'D409' };
  const agorot = Math.abs(input.amount) % 100;
  if (agorot === 97) return { refuse: 'D404' };
  if (agorot === 98) return 'fail';
  if (agorot === 99) return 'flaky';
  return 'report';
}

/** The simulated report number: "SIM-" and 12 digits from a hash of the report, so it never passes for a real one. */
export function simulatedReportNumber(input: DonationReportInput): string {
  const h = createHash('sha256')
    .update([input.institutionTaxId, input.reference, input.kind, input.receiptType, input.receiptNumber, input.donorId, input.amount].join('|'))
    .digest();
  return `SIM-${String(h.readUInt32BE(0) % 1_000_000).padStart(6, '0')}${String(h.readUInt32BE(4) % 1_000_000).padStart(6, '0')}`;
}

export class DonationSimulator implements DonationReporter {
  readonly kind = 'simulator' as const;
  /** Attempts per report for the flaky branch (in this process only). */
  private readonly attempts = new Map<string, number>();

  async report(input: DonationReportInput): Promise<DonationReportResult> {
    const branch = simulatorBranch(input);
    if (branch === 'fail') throw new DonationTransportError('connection reset by the donation system (simulated)', 'network');
    if (branch === 'flaky') {
      const n = (this.attempts.get(input.reference) ?? 0) + 1;
      this.attempts.set(input.reference, n);
      if (n <= 2) throw new DonationTransportError(`the donation system answered HTTP 503 (simulated, try ${n})`, 'http_503');
    }
    if (typeof branch === 'object') return { status: 'refused', code: branch.refuse, message: SIMULATOR_REFUSALS[branch.refuse] };
    return { status: 'reported', reportNumber: simulatedReportNumber(input) };
  }
}
