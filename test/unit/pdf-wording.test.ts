import { describe, expect, it } from 'vitest';
import {
  cardAcquirerName,
  cardDealTypeName,
  formatDate,
  formatMoney,
  formatQuantity,
  formatRate,
  formatShekels,
  paymentMethodName,
} from '../../src/pdf/hebrew.ts';
import { dealerIdLine, footerLine, infoLines, paymentDetails, paymentsSummaryRows, titleLine, totalsRows } from '../../src/pdf/wording.ts';
import { sampleModel } from '../../src/pdf/samples.ts';
import { readableOn, themeFor } from '../../src/pdf/theme.ts';

describe('formatting', () => {
  it('formats agorot as shekels with thousands separators', () => {
    expect(formatMoney(0)).toBe('0.00');
    expect(formatMoney(5)).toBe('0.05');
    expect(formatMoney(123456)).toBe('1,234.56');
    expect(formatMoney(100000000)).toBe('1,000,000.00');
    expect(formatMoney(-1050)).toBe('-10.50');
    expect(formatShekels(123456)).toBe('₪1,234.56');
    expect(formatShekels(-300)).toBe('-₪3.00');
  });

  it('formats dates, quantities and rates', () => {
    expect(formatDate('2026-03-01')).toBe('01/03/2026');
    expect(formatQuantity(2)).toBe('2');
    expect(formatQuantity(1.5)).toBe('1.5');
    expect(formatQuantity(0.33333333)).toBe('0.3333');
    expect(formatRate(1800)).toBe('18%');
    expect(formatRate(1750)).toBe('17.5%');
    expect(formatRate(0)).toBe('0%');
  });
});

describe('payment wording', () => {
  it('names every payment method in Hebrew, the apps included', () => {
    expect(paymentMethodName(1)).toBe('מזומן');
    expect(paymentMethodName(2)).toBe('המחאה');
    expect(paymentMethodName(3)).toBe('כרטיס אשראי');
    expect(paymentMethodName(4)).toBe('העברה בנקאית');
    expect(paymentMethodName(5)).toBe('שובר');
    expect(paymentMethodName(8)).toBe('הוראת קבע');
    expect(paymentMethodName(9)).toBe('אחר');
    expect(paymentMethodName(91)).toBe('ביט');
    expect(paymentMethodName(92)).toBe('פייבוקס');
    expect(paymentMethodName(93)).toBe('אפליקציית תשלום');
  });

  it('names card acquirers and deal types by OPENFRMT code, and keeps free text', () => {
    expect(cardAcquirerName('1')).toBe('ישראכרט');
    expect(cardAcquirerName('2')).toBe('כאל');
    expect(cardAcquirerName('6')).toBe('לאומי קארד / מקס');
    expect(cardAcquirerName('Max')).toBe('Max');
    expect(cardDealTypeName('2')).toBe('תשלומים');
    expect(cardDealTypeName('3')).toBe('קרדיט');
  });

  it('prints cheque and card details', () => {
    expect(paymentDetails({ method: 2, amount: 1, checkNumber: '1001', bankCode: '12', branchCode: '345', accountNumber: '678901' })).toBe(
      "המחאה מס' 1001, בנק 12, סניף 345, חשבון 678901",
    );
    expect(paymentDetails({ method: 3, amount: 1, cardCompany: '1', cardName: 'Visa', cardTxType: '2' })).toBe('ישראכרט, Visa, סוג עסקה: תשלומים');
    expect(paymentDetails({ method: 1, amount: 1 })).toBe('');
  });
});

describe('document wording', () => {
  it('titles each type and numbers it', () => {
    expect(titleLine(sampleModel(305), 'origin')).toBe("חשבונית מס מס' 1001");
    expect(titleLine(sampleModel(320), 'copy')).toBe("חשבונית מס / קבלה מס' 1001");
    expect(titleLine(sampleModel(330), 'copy')).toBe("חשבונית מס זיכוי מס' 7");
    expect(titleLine(sampleModel(400), 'origin')).toBe("קבלה מס' 1001");
    expect(titleLine(sampleModel(305, 'classic', { docNumber: null }), 'draft')).toBe('חשבונית מס - טיוטה');
  });

  it('names the dealer kind before the tax id', () => {
    const m = sampleModel(305);
    expect(dealerIdLine(m)).toBe('ח.פ. 516179157');
    expect(dealerIdLine({ ...m, dealer: { ...m.dealer, dealerType: 'murshe' } })).toBe('עוסק מורשה 516179157');
    expect(dealerIdLine({ ...m, dealer: { ...m.dealer, dealerType: 'patur' } })).toBe('עוסק פטור 516179157');
    expect(dealerIdLine({ ...m, dealer: { ...m.dealer, dealerType: 'ngo' } })).toBe('ע"ר 516179157');
  });

  it('names the corrected document on a credit note and prints the allocation number', () => {
    expect(infoLines(sampleModel(330))).toContain("זיכוי עבור: חשבונית מס מס' 1001");
    expect(infoLines(sampleModel(305))).toContain('מספר הקצאה: 202603018765');
  });

  it('shows VAT separately with its rate', () => {
    const rows = totalsRows(sampleModel(305));
    expect(rows.map((r) => r.label)).toEqual(['סה"כ שורות', 'הנחה כללית', 'סה"כ לפני מע"מ', 'מע"מ 18%', 'סה"כ כולל מע"מ']);
    expect(rows.map((r) => r.value)).toEqual(['₪2,562.00', '-₪10.00', '₪2,552.00', '₪459.36', '₪3,011.36']);
  });

  it('names the exemption reason at a zero rate, and prints no VAT row for exempt dealers', () => {
    const m = sampleModel(305, 'classic', { vatRateBp: 0, vatExemptionReason: 'eilat' });
    expect(totalsRows(m).map((r) => r.label)).toContain('מע"מ 0% (אילת)');
    const patur = sampleModel(305);
    patur.dealer = { ...patur.dealer, dealerType: 'patur' };
    expect(totalsRows(patur).some((r) => r.label.startsWith('מע"מ'))).toBe(false);
  });

  it('shows withholding and the amount paid under the payments', () => {
    const rows = paymentsSummaryRows(sampleModel(320));
    expect(rows).toEqual([
      { label: 'ניכוי במקור', value: '₪50.00' },
      { label: 'סה"כ שולם', value: '₪2,961.36', strong: true },
    ]);
    expect(totalsRows(sampleModel(400))[0]).toEqual({ label: 'סה"כ שולם', value: '₪1,234.56', strong: true });
  });

  it('says origin / copy / draft in the footer', () => {
    expect(footerLine('origin')).toContain('מקור');
    expect(footerLine('copy')).toContain('העתק');
    expect(footerLine('origin')).toContain('מסמך ממוחשב');
    expect(footerLine('draft')).toContain('טיוטה');
  });
});

describe('themes', () => {
  it('classic paints the table head with the accent; stripe keeps it neutral and links in the accent', () => {
    const classic = themeFor('classic', '#0b6e4f');
    expect(classic.headFill).toBe('#0B6E4F');
    expect(classic.headText).toBe('#FFFFFF');
    const stripe = themeFor('stripe', '#0b6e4f');
    expect(stripe.headFill).not.toBe('#0B6E4F');
    expect(stripe.linkColor).toBe('#0B6E4F');
  });

  it('falls back to the default accent for a missing or malformed colour, and reads on light accents', () => {
    expect(themeFor('classic', null).headFill).toBe('#1F4E79');
    expect(themeFor('classic', 'red').headFill).toBe('#1F4E79');
    expect(readableOn('#FFFF00')).toBe('#111111');
  });
});
