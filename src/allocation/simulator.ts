/**
 * The tax-authority simulator: the sandbox always uses it, and live does too outside production
 * when no ITA client is configured. It is deterministic: the same invoice gets the same 9-digit
 * number, and documented magic inputs take every other branch (docs/allocation.md):
 *
 *   note contains            amount before VAT ends in   outcome
 *   [sim:432]                .32 agorot                  refused 432 (customer VAT number)
 *   [sim:434]                .34                         refused 434 (invoice date too old)
 *   [sim:436]                .36                         refused 436 (VAT above the calculated VAT)
 *   [sim:hang]               —                           no answer → transport failure "did not answer within ITA_TIMEOUT_MS" (waits ≤ 1 s)
 *   [sim:fail]               —                           transport failure, every time
 *   [sim:flaky]              —                           transport failure on the first 2 tries, then approved
 *
 * A customer VAT number whose check digit is wrong is refused with 432, as the authority does.
 */
import { createHash } from 'node:crypto';
import { checkDigitSum } from '../platform/tax-id.ts';
import { AllocationTransportError, type AllocationProvider, type ApprovalInput, type ApprovalResult, type ConsentProvider, type TokenSet } from './provider.ts';
import { randomToken } from '../platform/ids.ts';
import type { Clock } from '../platform/clock.ts';

export const SIMULATOR_REFUSALS: Record<string, string> = {
  '432': 'Customer VAT Number is incorrect',
  '434': 'Invoice date is more than two weeks old',
  '436': 'VAT amount is greater than the calculated VAT',
};

/** The longest a simulated hang really waits. */
export const SIMULATED_HANG_MAX_MS = 1_000;

export type SimulatorBranch = 'approve' | 'hang' | 'fail' | 'flaky' | { refuse: string };

/** Which branch an input takes (pure; the table above). */
export function simulatorBranch(input: ApprovalInput): SimulatorBranch {
  const note = (input.note ?? '').toLowerCase();
  for (const code of Object.keys(SIMULATOR_REFUSALS)) if (note.includes(`[sim:${code}]`)) return { refuse: code };
  if (note.includes('[sim:hang]')) return 'hang';
  if (note.includes('[sim:fail]')) return 'fail';
  if (note.includes('[sim:flaky]')) return 'flaky';
  const agorot = String(Math.abs(input.paymentAmount) % 100).padStart(2, '0');
  if (SIMULATOR_REFUSALS[`4${agorot}`]) return { refuse: `4${agorot}` };
  const customer = input.customerVatNumber.replace(/\D/g, '').padStart(9, '0');
  if (customer.length !== 9 || /^0+$/.test(customer) || checkDigitSum(customer) % 10 !== 0) return { refuse: '432' };
  return 'approve';
}

/** The simulated confirmation number: 26 digits from a hash of the invoice; its last 9 are the allocation number. */
export function simulatedConfirmation(input: ApprovalInput): string {
  const h = createHash('sha256')
    .update([input.vatNumber, input.invoiceId, input.invoiceType, input.customerVatNumber, input.paymentAmount, input.vatAmount, input.invoiceDate].join('|'))
    .digest();
  // 9 digits that never start with 0, so the printed number always has 9 significant digits.
  const allocation = String(100_000_000 + (h.readUInt32BE(0) % 900_000_000));
  const prefix = String(h.readUInt32BE(4) % 100_000_000).padStart(8, '0') + String(h.readUInt32BE(8) % 1_000_000_000).padStart(9, '0');
  return prefix + allocation;
}

export class AllocationSimulator implements AllocationProvider, ConsentProvider {
  readonly kind = 'simulator' as const;
  readonly needsConnection = false;
  /** Attempts per invoice for [sim:flaky] (in this process only). */
  private readonly attempts = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly opts: { timeoutMs: number; publicBaseUrl: string },
  ) {}

  async requestApproval(input: ApprovalInput): Promise<ApprovalResult> {
    const branch = simulatorBranch(input);
    if (branch === 'hang') {
      // The caller sees what a real hang gives (a timeout failure) without holding the shared job
      // runner for the whole timeout: sandbox traffic must not slow down live jobs.
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.opts.timeoutMs, SIMULATED_HANG_MAX_MS)));
      throw new AllocationTransportError(`the tax authority did not answer within ${this.opts.timeoutMs} ms (simulated)`, 'timeout');
    }
    if (branch === 'fail') throw new AllocationTransportError('connection reset by the tax authority (simulated)', 'network');
    if (branch === 'flaky') {
      const n = (this.attempts.get(input.invoiceId) ?? 0) + 1;
      this.attempts.set(input.invoiceId, n);
      if (n <= 2) throw new AllocationTransportError(`the tax authority answered HTTP 503 (simulated, try ${n})`, 'http_503');
    }
    if (typeof branch === 'object') return { status: 'refused', code: branch.refuse, message: SIMULATOR_REFUSALS[branch.refuse] };
    const confirmationNumber = simulatedConfirmation(input);
    return { status: 'approved', allocationNumber: confirmationNumber.slice(-9), confirmationNumber };
  }

  /** The simulated consent screen is served by this service (src/allocation/connection-routes.ts). */
  authorizationUrl(state: string): string {
    return `${this.opts.publicBaseUrl}/ita/simulator/authorize?state=${encodeURIComponent(state)}`;
  }

  async exchangeCode(code: string): Promise<TokenSet> {
    if (!code.startsWith('sim_')) throw new AllocationTransportError('unknown authorization code (simulated consent codes start with sim_)', 'invalid_grant');
    const now = this.clock.now();
    return {
      accessToken: `sim_at_${randomToken(12)}`,
      accessExpiresAt: new Date(now.getTime() + 600_000),
      refreshToken: `sim_rt_${randomToken(12)}`,
      refreshExpiresAt: new Date(now.getTime() + 30 * 86_400_000),
      scope: 'scope',
      consentedOn: now.toISOString(),
    };
  }
}
