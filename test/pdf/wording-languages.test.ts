import { describe, expect, it } from 'vitest';
import { sampleLanguageModel, sampleModel } from '../../src/pdf/samples.ts';
import {
  dealerIdLine,
  exchangeRateBlock,
  footerLine,
  infoLines,
  metadataSubject,
  metadataTitle,
  noteHeading,
  pageLabel,
  paymentDetails,
  paymentMethodLabel,
  paymentsSummaryRows,
  sandboxLine,
  signatureStatement,
  stampLines,
  titleLine,
  titleSecondLine,
  totalsRows,
} from '../../src/pdf/wording.ts';
import type { RenderModel, SignatureInfo } from '../../src/pdf/model.ts';

const USD = { code: 'USD', minorUnits: 2 };

describe('titles in every language', () => {
  const cases = [
    [305, 'חשבונית מס', 'Tax Invoice'],
    [320, 'חשבונית מס / קבלה', 'Tax Invoice / Receipt'],
    [330, 'חשבונית מס זיכוי', 'Credit Tax Invoice'],
    [400, 'קבלה', 'Receipt'],
  ] as const;
  it.each(cases)('%i: Hebrew, English with the Hebrew title kept, and bilingual', (docType, he, en) => {
    const n = docType === 330 ? 7 : 1001;
    expect(titleLine(sampleLanguageModel(docType, 'he'), 'origin')).toBe(`${he} מס' ${n}`);
    expect(titleSecondLine(sampleLanguageModel(docType, 'he'), 'origin')).toBeNull();
    expect(titleLine(sampleLanguageModel(docType, 'en'), 'origin')).toBe(`${en} No. ${n}`);
    expect(titleSecondLine(sampleLanguageModel(docType, 'en'), 'origin')).toBe(he);
    expect(titleLine(sampleLanguageModel(docType, 'he+en'), 'copy')).toBe(`${he} מס' ${n}`);
    expect(titleSecondLine(sampleLanguageModel(docType, 'he+en'), 'copy')).toBe(`${en} No. ${n}`);
    expect(metadataTitle(sampleLanguageModel(docType, 'en'))).toBe(`${en} ${n}`);
    expect(metadataTitle(sampleLanguageModel(docType, 'he+en'))).toBe(`${he} / ${en} ${n}`);
    expect(metadataTitle(sampleLanguageModel(docType, 'he'))).toBe(`${he} ${n}`);
  });

  it('titles a draft as such, in Hebrew too on an English page', () => {
    const draft = sampleLanguageModel(305, 'en', undefined, { docNumber: null });
    expect(titleLine(draft, 'draft')).toBe('Tax Invoice - Draft');
    expect(titleSecondLine(draft, 'draft')).toBe('חשבונית מס - טיוטה');
    expect(metadataTitle(draft)).toBe('Tax Invoice');
  });
});

describe('dealer, buyer and info lines', () => {
  const withDealer = (lang: 'en' | 'he+en', dealerType: RenderModel['dealer']['dealerType']) => {
    const m = sampleLanguageModel(305, lang);
    return { ...m, dealer: { ...m.dealer, dealerType } };
  };
  it('keeps "עוסק מורשה" / "עוסק פטור" in Hebrew on English pages', () => {
    expect(dealerIdLine(withDealer('en', 'murshe'))).toBe('Authorized Dealer (עוסק מורשה) 516179157');
    expect(dealerIdLine(withDealer('en', 'patur'))).toBe('Exempt Dealer (עוסק פטור) 516179157');
    expect(dealerIdLine(withDealer('en', 'company'))).toBe('Company No. 516179157');
    expect(dealerIdLine(withDealer('en', 'ngo'))).toBe('Registered Non-Profit No. 516179157');
    expect(dealerIdLine(withDealer('he+en', 'murshe'))).toBe('עוסק מורשה / Authorized Dealer 516179157');
    expect(dealerIdLine(withDealer('he+en', 'company'))).toBe('ח.פ. / Company No. 516179157');
  });

  it('names the corrected document and the allocation number', () => {
    expect(infoLines(sampleLanguageModel(330, 'en'))).toEqual(['Credit for: Tax Invoice No. 1001']);
    expect(infoLines(sampleLanguageModel(330, 'he+en'))).toEqual(["זיכוי עבור / Credit for: חשבונית מס מס' 1001 / Tax Invoice No. 1001"]);
    expect(infoLines(sampleLanguageModel(305, 'en'))).toEqual(['Allocation number: 202603018765']);
    expect(infoLines(sampleLanguageModel(305, 'en', undefined, { valueDate: '2026-03-15' }))[0]).toBe('Value date: 15 Mar 2026');
    expect(infoLines(sampleLanguageModel(305, 'he+en', undefined, { valueDate: '2026-03-15' }))[0]).toBe('תאריך ערך / Value date: 15/03/2026');
  });
});

describe('totals, payments and the exchange rate', () => {
  it('labels the totals in English with the currency', () => {
    const rows = totalsRows(sampleLanguageModel(305, 'en', USD));
    expect(rows.map((r) => r.label)).toEqual(['Lines total', 'Document discount', 'Total before VAT', 'VAT 18%', 'Total incl. VAT']);
    expect(rows.map((r) => r.value)).toEqual(['USD 2,562.00', 'USD -10.00', 'USD 2,552.00', 'USD 459.36', 'USD 3,011.36']);
  });

  it('puts the English under the Hebrew in bilingual totals, exemption reasons included', () => {
    const m = sampleLanguageModel(305, 'he+en', undefined, { vatRateBp: 0, vatExemptionReason: 'export' });
    expect(totalsRows(m).map((r) => r.label)).toContain('מע"מ 0% (יצוא)\nVAT 0% (Export)');
    expect(totalsRows(sampleLanguageModel(305, 'he+en'))[4]).toEqual({ label: 'סה"כ כולל מע"מ\nTotal incl. VAT', value: '₪3,011.36', strong: true });
  });

  it('uses the minor units of the currency everywhere', () => {
    const jpy = sampleLanguageModel(320, 'en', { code: 'JPY', minorUnits: 0 });
    expect(totalsRows(jpy).at(-1)!.value).toBe('JPY 301,136');
    expect(paymentsSummaryRows(jpy).at(-1)!.value).toBe('JPY 296,136');
    const kwd = sampleLanguageModel(320, 'en', { code: 'KWD', minorUnits: 3 });
    expect(totalsRows(kwd).at(-1)!.value).toBe('KWD 301.136');
  });

  it('states the rate, its date and source, and the recorded shekel totals', () => {
    const m = sampleLanguageModel(305, 'en', USD, {
      ils: { discountAmount: 3721, totalExVat: 949599, vatAmount: 170928, totalIncVat: 1120527, withholdingAmount: 0 },
    });
    expect(exchangeRateBlock(m)).toEqual({
      lines: ['Exchange rate: USD 1 = ₪3.7210', 'Rate date: 27 Feb 2026', 'Source: Bank of Israel representative rate'],
      rows: [
        { label: 'Total before VAT in ILS', value: '₪9,495.99' },
        { label: 'VAT in ILS', value: '₪1,709.28' },
        { label: 'Total incl. VAT in ILS', value: '₪11,205.27', strong: true },
      ],
    });
    const he = exchangeRateBlock(sampleLanguageModel(400, 'he', USD, { exchangeRateSource: 'business' }))!;
    expect(he.lines).toEqual(['שער חליפין: USD 1 = ₪3.7210', 'תאריך השער: 27/02/2026', 'מקור השער: שער שקבע העסק']);
    expect(he.rows[0].label).toBe('סה"כ שולם בשקלים');
    const both = exchangeRateBlock(sampleLanguageModel(305, 'he+en', USD, { exchangeRateSource: 'request' }))!;
    expect(both.lines).toContain('Source: rate given with the document');
    expect(both.lines).toContain('מקור השער: שער שנמסר עם המסמך');
  });

  it('prints no rate block for shekels, and no shekel rows it was not given', () => {
    expect(exchangeRateBlock(sampleLanguageModel(305, 'en'))).toBeNull();
    expect(exchangeRateBlock(sampleLanguageModel(305, 'en', USD, { ils: null }))!.rows).toEqual([]);
  });

  it('names payment methods and details in each language, and a payment in another currency', () => {
    expect(paymentMethodLabel({ method: 92, amount: 1 }, 'en')).toBe('PayBox');
    expect(paymentMethodLabel({ method: 4, amount: 1 }, 'he+en')).toBe('העברה בנקאית / Bank transfer');
    expect(paymentMethodLabel({ method: 7, amount: 1 }, 'en')).toBe('Other (7)');
    expect(paymentMethodLabel({ method: 7, amount: 1 }, 'he')).toBe('אחר (7)');
    const cheque = { method: 2, amount: 1, checkNumber: '1001', bankCode: '12', branchCode: '345', accountNumber: '678901' };
    expect(paymentDetails(cheque, 'en')).toBe('Cheque No. 1001, Bank 12, Branch 345, Account 678901');
    expect(paymentDetails({ method: 3, amount: 1, cardCompany: '6', cardName: 'Visa', cardTxType: '4' }, 'en')).toBe(
      'Leumi Card / Max, Visa, Deal type: Deferred charge',
    );
    expect(paymentDetails({ method: 3, amount: 1, cardCompany: '2', cardTxType: '2' }, 'he+en')).toBe(
      'כאל / Cal, סוג עסקה / Deal type: תשלומים / Installments',
    );
    const eur = { method: 4, amount: 37210, currency: { code: 'EUR', minorUnits: 2 }, exchangeRate: '4.0123', originalAmount: 9274 };
    expect(paymentDetails(eur, 'en')).toBe('Paid in: EUR 92.74 (EUR 1 = ₪4.0123)');
    expect(paymentDetails(eur, 'he')).toBe('שולם במטבע: EUR 92.74 (EUR 1 = ₪4.0123)');
  });
});

describe('marks, signature, sandbox, pages', () => {
  it('keeps מקור / העתק and מסמך ממוחשב in Hebrew on English pages', () => {
    expect(footerLine('origin', 'en')).toBe('Original (מקור) | Computerised document (מסמך ממוחשב)');
    expect(footerLine('copy', 'en')).toBe('Copy (העתק) | Computerised document (מסמך ממוחשב)');
    expect(footerLine('copy', 'he+en')).toBe('העתק / Copy | מסמך ממוחשב / Computerised document');
    expect(footerLine('origin')).toBe('מקור | מסמך ממוחשב');
    expect(footerLine('draft', 'en')).toContain('טיוטה');
    expect(stampLines('origin', 'en').marks).toEqual(['Original', 'מקור']);
    expect(stampLines('copy', 'he+en').marks).toEqual(['העתק', 'Copy']);
    expect(stampLines('copy', 'he')).toEqual({ marks: ['העתק'], small: 'מסמך ממוחשב' });
  });

  it('says what signed the file, and never "approved" for a self-signed certificate', () => {
    const dev: SignatureInfo = { kind: 'development', subject: 'pinkas self-signed', issuer: 'pinkas self-signed' };
    expect(signatureStatement(dev, 'en')).toBe('Signed with a self-signed development certificate — not an approved electronic signature');
    expect(signatureStatement(dev, 'he')).toBe('נחתם בתעודת פיתוח בחתימה עצמית - אינה חתימה אלקטרונית מאושרת');
    expect(signatureStatement(dev, 'he+en').split('\n')).toHaveLength(2);
    const self: SignatureInfo = { kind: 'self-signed', subject: 'My Cert', issuer: 'My Cert' };
    expect(signatureStatement(self, 'en')).toBe('Signed with a self-signed certificate — not an approved electronic signature (My Cert)');
    const issued: SignatureInfo = { kind: 'issued', subject: 'Cafe Signer, Neighbourhood Cafe Ltd', issuer: 'Test Root CA, Test Trust Services' };
    expect(signatureStatement(issued, 'en')).toBe(
      'Electronically signed by Cafe Signer, Neighbourhood Cafe Ltd; certificate issued by Test Root CA, Test Trust Services',
    );
    expect(signatureStatement(issued, 'he')).toBe(
      'חתום אלקטרונית על ידי: Cafe Signer, Neighbourhood Cafe Ltd; מנפיק התעודה: Test Root CA, Test Trust Services',
    );
    for (const s of [signatureStatement(issued, 'en'), signatureStatement(issued, 'he')]) expect(s).not.toMatch(/approved|מאושרת/);
    expect(signatureStatement(null, 'en')).toMatch(/not signed/);
  });

  it('marks the sandbox in the page language(s)', () => {
    expect(sandboxLine('en')).toBe('SANDBOX — NOT A TAX DOCUMENT');
    expect(sandboxLine('he')).toBe('מסמך ניסיון — אינו מסמך מס');
    expect(sandboxLine('he+en')).toBe('מסמך ניסיון — אינו מסמך מס / SANDBOX — NOT A TAX DOCUMENT');
    expect(metadataSubject(sampleLanguageModel(305, 'en'), 'origin', true)).toBe(
      'Tax Invoice No. 1001 | Original | Neighbourhood Cafe Ltd | SANDBOX — NOT A TAX DOCUMENT',
    );
    expect(metadataSubject(sampleModel(305), 'copy', false)).toBe('חשבונית מס מס\' 1001 | העתק | קפה השכונה בע"מ');
  });

  it('numbers pages and heads the notes', () => {
    expect(pageLabel(2, 3, 'en')).toBe('Page 2 of 3');
    expect(pageLabel(2, 3, 'he')).toBe('עמוד 2 מתוך 3');
    expect(pageLabel(2, 3, 'he+en')).toBe('עמוד 2 מתוך 3\nPage 2 of 3');
    expect(noteHeading('en')).toBe('Notes:');
    expect(noteHeading('he')).toBe('הערות:');
    expect(noteHeading('he+en')).toBe('הערות / Notes');
  });
});
