import { describe, expect, it } from 'vitest';
import { allocationNumberOf, approvalRequestBody, classifyApprovalAnswer, parseTokenResponse, shekels } from '../../src/allocation/ita-protocol.ts';
import { AllocationTransportError, type ApprovalInput } from '../../src/allocation/provider.ts';

const input: ApprovalInput = {
  businessId: 'biz_1',
  invoiceId: 'doc_1',
  invoiceType: 305,
  vatNumber: '516179157',
  invoiceReferenceNumber: '1001',
  customerVatNumber: '512200502',
  customerName: 'לקוח עם שם ארוך מאוד שחורג מעשרים וחמישה תווים',
  invoiceDate: '2026-07-01',
  invoiceIssuanceDate: '2026-07-02',
  amountBeforeDiscount: 610_000,
  discount: 10_000,
  paymentAmount: 600_000,
  vatAmount: 108_000,
  paymentAmountIncludingVat: 708_000,
  note: null,
};

describe('approval request body (v2, snake_case)', () => {
  it('sends VAT numbers as JSON numbers and amounts in shekels with two decimals', () => {
    const b = approvalRequestBody(input, 99999999);
    expect(b).toEqual({
      invoice_id: 'doc_1',
      invoice_type: 305,
      vat_number: 516179157,
      customer_vat_number: 512200502,
      invoice_date: '2026-07-01',
      invoice_issuance_date: '2026-07-02',
      accounting_software_number: 99999999,
      amount_before_discount: 6100,
      discount: 100,
      payment_amount: 6000,
      vat_amount: 1080,
      payment_amount_including_vat: 7080,
      invoice_reference_number: '1001',
      customer_name: input.customerName!.slice(0, 25),
    });
  });
  it('leaves out what a draft does not have and cuts the note to 100 characters', () => {
    const b = approvalRequestBody({ ...input, invoiceReferenceNumber: null, customerName: null, note: 'x'.repeat(150) }, 1);
    expect(b.invoice_reference_number).toBeUndefined();
    expect(b.customer_name).toBeUndefined();
    expect(b.invoice_note).toBe('x'.repeat(100));
  });
  it.each([
    [1, 0.01],
    [123456, 1234.56],
    [-500, -5],
    [0, 0],
  ])('%i agorot → %d', (agorot, value) => expect(shekels(agorot)).toBe(value));
});

describe('allocation number of a confirmation number', () => {
  it.each([
    ['20230820112155830232010517', '232010517'],
    ['123456789', '123456789'],
    ['12345678', null],
    ['0', null],
    ['000000000000', null],
  ])('%s → %s', (confirmation, number) => expect(allocationNumberOf(confirmation)).toBe(number));
});

describe('approval answers', () => {
  it('approved (v1 shape and v2 flag)', () => {
    expect(classifyApprovalAnswer(200, { Status: 200, Message: 'Invoice approved', Confirmation_Number: '20230820112155830232010517' })).toEqual({
      status: 'approved',
      allocationNumber: '232010517',
      confirmationNumber: '20230820112155830232010517',
    });
    expect(classifyApprovalAnswer(200, { approved: true, confirmation_number: '99988877766655' })).toMatchObject({
      status: 'approved',
      allocationNumber: '877766655',
    });
  });
  it.each([
    [
      400,
      {
        Status: 400,
        Confirmation_Number: 0,
        Message: { errors: [{ code: 432, message: 'Customer VAT Number is incorrect', param: 'customer_vat_number', location: 'validation' }] },
      },
      '432',
    ],
    [200, { Status: 200, Confirmation_Number: 0, Message: { errors: [{ code: 434, message: 'Invoice date is more than two weeks old' }] } }, '434'],
    [200, { approved: false, errors: [{ code: 460, message: 'decision required', location: 'approval' }] }, '460'],
    [406, { Status: 406, Message: 'Not Acceptable', Error_Id: 'x' }, '406'],
    [422, { httpCode: '422', moreInformation: 'schema' }, '422'],
  ])('HTTP %i → refused', (status, body, code) => {
    const r = classifyApprovalAnswer(status, body);
    expect(r.status).toBe('refused');
    expect((r as { code: string }).code).toBe(code);
  });
  it('names the parameter of a validation error', () => {
    const r = classifyApprovalAnswer(400, {
      Message: { errors: [{ code: 436, message: 'VAT amount is greater than the calculated VAT', param: 'vat_amount' }] },
    });
    expect(r).toEqual({ status: 'refused', code: '436', message: 'VAT amount is greater than the calculated VAT (vat_amount)' });
  });
  it('401 asks for a token refresh', () => expect(classifyApprovalAnswer(401, { httpCode: '401' })).toEqual({ status: 'unauthorized' }));
  it.each([[500], [502], [503], [429], [408], [302], [404]])('HTTP %i is a transport error (retry)', (status) => {
    expect(() => classifyApprovalAnswer(status, { Status: status })).toThrow(AllocationTransportError);
  });
  it('an approval without a usable number, or an unreadable body, is a transport error', () => {
    expect(() => classifyApprovalAnswer(200, { Status: 200, Confirmation_Number: '0' })).toThrow(AllocationTransportError);
    expect(() => classifyApprovalAnswer(200, null)).toThrow(AllocationTransportError);
    expect(() => classifyApprovalAnswer(200, 'html')).toThrow(AllocationTransportError);
  });
});

describe('token responses', () => {
  const now = new Date('2026-03-01T08:00:00.000Z');
  it('turns relative lifetimes into absolute expiries', () => {
    const t = parseTokenResponse(
      {
        token_type: 'Bearer',
        access_token: 'a',
        scope: 'scope',
        expires_in: 601,
        consented_on: 1700000000,
        refresh_token: 'r',
        refresh_token_expires_in: 2592000,
      },
      now,
    );
    expect(t).toEqual({
      accessToken: 'a',
      refreshToken: 'r',
      scope: 'scope',
      consentedOn: '1700000000',
      accessExpiresAt: new Date('2026-03-01T08:10:01.000Z'),
      refreshExpiresAt: new Date('2026-03-31T08:00:00.000Z'),
    });
  });
  it('defaults missing lifetimes (10 minutes, 30 days) and accepts string numbers', () => {
    const t = parseTokenResponse({ access_token: 'a', refresh_token: 'r', expires_in: '300' }, now);
    expect(t.accessExpiresAt.toISOString()).toBe('2026-03-01T08:05:00.000Z');
    expect(t.refreshExpiresAt.toISOString()).toBe('2026-03-31T08:00:00.000Z');
  });
  it('refuses an answer without tokens', () => {
    expect(() => parseTokenResponse({ error: 'invalid_grant' }, now)).toThrow(AllocationTransportError);
  });
});
