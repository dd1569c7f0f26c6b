import { describe, expect, it } from 'vitest';
import { AllocationSimulator, simulatedConfirmation, simulatorBranch } from '../../src/allocation/simulator.ts';
import { AllocationTransportError, type ApprovalInput } from '../../src/allocation/provider.ts';
import { ManualClock } from '../../src/platform/clock.ts';

const input: ApprovalInput = {
  businessId: 'biz_1',
  invoiceId: 'doc_1',
  invoiceType: 305,
  vatNumber: '516179157',
  invoiceReferenceNumber: '1',
  customerVatNumber: '512200502',
  customerName: null,
  invoiceDate: '2026-07-01',
  invoiceIssuanceDate: '2026-07-01',
  amountBeforeDiscount: 600_000,
  discount: 0,
  paymentAmount: 600_000,
  vatAmount: 108_000,
  paymentAmountIncludingVat: 708_000,
  note: null,
};

describe('simulator branches (the documented magic inputs)', () => {
  it.each([
    [{}, 'approve'],
    [{ note: 'הערה [sim:432]' }, { refuse: '432' }],
    [{ note: '[SIM:434]' }, { refuse: '434' }],
    [{ note: 'x [sim:436] y' }, { refuse: '436' }],
    [{ note: '[sim:hang]' }, 'hang'],
    [{ note: '[sim:fail]' }, 'fail'],
    [{ note: '[sim:flaky]' }, 'flaky'],
    [{ note: 'sim:432 without brackets' }, 'approve'],
    [{ paymentAmount: 600_032 }, { refuse: '432' }],
    [{ paymentAmount: 600_034 }, { refuse: '434' }],
    [{ paymentAmount: 600_036 }, { refuse: '436' }],
    [{ paymentAmount: 600_033 }, 'approve'],
    [{ paymentAmount: 600_099 }, 'approve'],
    [{ customerVatNumber: '512200503' }, { refuse: '432' }],
    [{ customerVatNumber: '000000000' }, { refuse: '432' }],
    [{ customerVatNumber: '' }, { refuse: '432' }],
    [{ customerVatNumber: '12345678' }, { refuse: '432' }],
  ])('%j → %j', (over, branch) => expect(simulatorBranch({ ...input, ...over })).toEqual(branch));

  it('a note keyword wins over the amount', () => {
    expect(simulatorBranch({ ...input, paymentAmount: 600_032, note: '[sim:fail]' })).toBe('fail');
  });
});

describe('simulated numbers', () => {
  it('are 9 digits, never starting with 0, and depend on the invoice', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const c = simulatedConfirmation({ ...input, invoiceId: `doc_${i}` });
      expect(c).toMatch(/^\d{26}$/);
      expect(c.slice(-9)).toMatch(/^[1-9]\d{8}$/);
      seen.add(c.slice(-9));
    }
    expect(seen.size).toBe(300);
  });
});

describe('the simulator as a provider', () => {
  const sim = () => new AllocationSimulator(new ManualClock(), { timeoutMs: 20, publicBaseUrl: 'http://x' });
  it('approves, refuses, fails, times out, and recovers after two flaky tries', async () => {
    const s = sim();
    const ok = await s.requestApproval(input);
    expect(ok).toEqual({ status: 'approved', allocationNumber: simulatedConfirmation(input).slice(-9), confirmationNumber: simulatedConfirmation(input) });
    expect(await s.requestApproval({ ...input, note: '[sim:436]' })).toEqual({
      status: 'refused',
      code: '436',
      message: 'VAT amount is greater than the calculated VAT',
    });
    await expect(s.requestApproval({ ...input, note: '[sim:fail]' })).rejects.toThrow(AllocationTransportError);
    await expect(s.requestApproval({ ...input, note: '[sim:hang]' })).rejects.toMatchObject({ code: 'timeout' });
    const flaky = { ...input, note: '[sim:flaky]' };
    await expect(s.requestApproval(flaky)).rejects.toThrow(/try 1/);
    await expect(s.requestApproval(flaky)).rejects.toThrow(/try 2/);
    expect((await s.requestApproval(flaky)).status).toBe('approved');
  });
  it('simulated consent: its own screen, codes starting sim_, a 30-day grant', async () => {
    const s = sim();
    expect(s.authorizationUrl('s_a b')).toBe('http://x/ita/simulator/authorize?state=s_a%20b');
    const t = await s.exchangeCode('sim_abc');
    expect(t.refreshExpiresAt.getTime() - new ManualClock().now().getTime()).toBe(30 * 86_400_000);
    await expect(s.exchangeCode('other')).rejects.toThrow(AllocationTransportError);
  });
});
