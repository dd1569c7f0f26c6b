// Every document type in every language, in shekels and dollars (and yen, dinars for the minor
// units), rendered and read back as a reader extracts it; metadata read back from the file.
import { beforeAll, describe, expect, it } from 'vitest';
import { renderDocumentPdf } from '../../src/pdf/render.ts';
import { sampleLanguageModel } from '../../src/pdf/samples.ts';
import { generateSelfSignedP12, parseP12 } from '../../src/pdf/certificate.ts';
import { pdfSigner, type PdfSigner } from '../../src/pdf/sign.ts';
import { formatAmount } from '../../src/pdf/format.ts';
import type { DocType } from '../../src/pdf/hebrew.ts';
import { DOC_TYPE_CODES, DOC_TYPES } from '../../src/documents/doc-types.ts';
import type { Language, RenderModel } from '../../src/pdf/model.ts';
import { checkPdfSignature, pdfSignatureValid } from './signature-check.ts';
import { pdfInfo, pdfPageCount, pdfPageTexts, pdfText } from './extract-text.ts';
import { caIssuedP12 } from './certificates.ts';

const AT = new Date('2026-03-01T08:00:00.000Z');
let dev: PdfSigner;
let selfSigned: PdfSigner;
let issued: PdfSigner;

beforeAll(() => {
  dev = pdfSigner(parseP12(generateSelfSignedP12({ commonName: 'pinkas self-signed (development and sandbox)', password: 'x', now: AT }), 'x'), {
    name: 'pinkas',
    development: true,
  });
  selfSigned = pdfSigner(parseP12(generateSelfSignedP12({ commonName: 'Home-made Cert', password: 'x', now: AT }), 'x'), { name: 'pinkas' });
  issued = pdfSigner(parseP12(caIssuedP12('x', AT), 'x'), { name: 'pinkas' });
});

// The printed titles, pinned word for word in test/unit/doc-types.test.ts.
const HE = Object.fromEntries(DOC_TYPE_CODES.map((c) => [c, DOC_TYPES[c].titles.he])) as Record<DocType, string>;
const EN = Object.fromEntries(DOC_TYPE_CODES.map((c) => [c, DOC_TYPES[c].titles.en])) as Record<DocType, string>;
const USD = { code: 'USD', minorUnits: 2 };
const ILS = { code: 'ILS', minorUnits: 2 };

const expectAll = (text: string, phrases: string[]) => {
  for (const p of phrases) expect(text, `missing: ${p}`).toContain(p);
};

describe.each(['he', 'en', 'he+en'] as Language[])('language %s', (lang) => {
  describe.each([ILS, USD])('currency $code', (currency) => {
    it.each([10, 100, 200, 210, 300, 305, 320, 330, 400] as DocType[])('renders a signed %i with its title, labels, amounts and metadata', async (docType) => {
      const m = sampleLanguageModel(docType, lang, currency);
      const pdf = await renderDocumentPdf(m, 'origin', { signer: dev, at: AT });
      expect(pdfSignatureValid(pdf)).toBe(true);
      const text = await pdfText(pdf);
      const n = m.docNumber;
      const heWords = lang !== 'en';
      const enWords = lang !== 'he';

      // Titles: the English page keeps the Hebrew name of the type; the bilingual one adds English.
      if (heWords) expect(text).toContain(`${HE[docType]} מס' ${n}`);
      if (enWords) expect(text).toContain(`${EN[docType]} No. ${n}`);
      expect(text).toContain(HE[docType]);
      // Print marks and "מסמך ממוחשב" in Hebrew on every page language.
      expectAll(text, ['מקור', 'מסמך ממוחשב']);
      if (enWords) expectAll(text, ['Original', 'Computerised document', 'not an approved electronic signature']);
      if (heWords) expect(text).toContain('אינה חתימה אלקטרונית מאושרת');
      expect(text).not.toContain('העתק');

      const total = docType === 400 ? 123456 : 301136;
      expect(text).toContain(formatAmount(total, currency));
      if (docType !== 400) {
        expect(text).toContain(formatAmount(45936, currency));
        if (heWords) expectAll(text, ['סה"כ לפני מע"מ', 'סה"כ כולל מע"מ', 'מע"מ 18%']);
        if (enWords) expectAll(text, ['Total before VAT', 'Total incl. VAT', 'VAT 18%', 'Description', 'Unit price']);
      } else if (enWords) {
        expectAll(text, ['Cash', 'PayBox', 'Payment app', 'Total paid']);
      } else {
        expectAll(text, ['מזומן', 'פייבוקס', 'סה"כ שולם']);
      }
      if (docType === 320 && enWords) expectAll(text, ['Cheque No. 1001', 'Isracard', 'Tax withheld at source']);
      if (docType === 330 && enWords) expect(text).toContain('Credit for');
      // A 300 says it is not a tax invoice in Hebrew on every page, and in English where English is printed.
      if (docType === 300) {
        expect(text).toContain('זו אינה חשבונית מס');
        if (enWords) expect(text).toContain('This is not a tax invoice');
      } else expect(text).not.toContain('not a tax invoice');
      if (lang === 'en') expectAll(text, ['Authorized Dealer', 'עוסק מורשה', 'Alpha Tech Ltd', 'To:', 'Date: 1 Mar 2026']);
      if (lang === 'he+en') expect(text).toContain('01/03/2026');

      if (currency.code === 'USD') {
        expect(text).toContain('USD 1 = ₪3.7210');
        if (enWords) expectAll(text, ['Bank of Israel representative rate', '27 Feb 2026']);
        if (heWords) expectAll(text, ['שער יציג של בנק ישראל', '27/02/2026']);
        // The shekel totals are the recorded ones, not a product computed by the renderer.
        expect(text).toContain(formatAmount(m.ils!.totalIncVat));
        if (docType === 305) expectAll(text, ['₪11,205.27', '₪1,709.28']);
        if (docType !== 400) expect(text).toContain(formatAmount(m.ils!.vatAmount));
      } else {
        expect(text).not.toContain('3.7210');
        expect(text).not.toContain('USD');
      }

      const info = await pdfInfo(pdf);
      expect(info).toMatchObject({
        Title: `${lang === 'en' ? EN[docType] : lang === 'he' ? HE[docType] : `${HE[docType]} / ${EN[docType]}`} ${n}`,
        Author: m.dealer.name,
        Creator: 'pinkas',
        Producer: 'pinkas',
        Language: lang === 'en' ? 'en' : 'he',
      });
      expect(info.Subject).toContain(m.dealer.name);
      expect(info.Subject).not.toMatch(/SANDBOX|ניסיון/);
    });
  });
});

describe('minor units', () => {
  it('prints yen without decimals and dinars with three', async () => {
    const jpy = await pdfText(await renderDocumentPdf(sampleLanguageModel(320, 'en', { code: 'JPY', minorUnits: 0 }), 'copy', { signer: dev, at: AT }));
    expectAll(jpy, ['JPY 301,136', 'JPY 250,000', 'JPY 1,450', 'JPY 1 = ₪0.024531', 'Copy', 'העתק']);
    expect(jpy).not.toMatch(/JPY [\d,]+\.\d/);
    const kwd = await pdfText(await renderDocumentPdf(sampleLanguageModel(320, 'en', { code: 'KWD', minorUnits: 3 }), 'copy', { signer: dev, at: AT }));
    expectAll(kwd, ['KWD 301.136', 'KWD 2.900', 'KWD 250.000', 'KWD -1.000', 'KWD 1 = ₪12.1034']);
    // A payment in euros on a dinar document states its own amount and rate.
    expect(kwd).toContain('EUR 1 = ₪4.0123');
  });
});

describe('the sandbox mark', () => {
  const many = (lang: Language): RenderModel => {
    const base = sampleLanguageModel(305, lang);
    const lines = Array.from({ length: 70 }, (_, i) => ({
      description: `Item ${i + 1} פריט`,
      quantity: 1,
      unitPrice: 100,
      lineDiscount: 0,
      amount: 100,
      unit: null,
      sku: null,
    }));
    return { ...base, lines, totals: { ...base.totals, discountAmount: 0, totalExVat: 7000, vatAmount: 1260, totalIncVat: 8260 } };
  };

  it.each([
    ['he', ['מסמך ניסיון — אינו מסמך מס'], ['SANDBOX']],
    ['en', ['SANDBOX — NOT A TAX DOCUMENT'], ['מסמך ניסיון']],
    ['he+en', ['מסמך ניסיון — אינו מסמך מס', 'SANDBOX — NOT A TAX DOCUMENT'], []],
  ] as const)('is on every page of a multi-page %s document', async (lang, marks, absent) => {
    const pdf = await renderDocumentPdf(many(lang), 'origin', { signer: dev, at: AT, sandbox: true });
    const pages = await pdfPageTexts(pdf);
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(await pdfPageCount(pdf)).toBe(pages.length);
    for (const page of pages) {
      for (const mark of marks) expect(page).toContain(mark);
      for (const a of absent) expect(page).not.toContain(a);
    }
    expect(pdfSignatureValid(pdf)).toBe(true);
    expect((await pdfInfo(pdf)).Subject).toContain(marks[0]);
    expect(pdf.toString('latin1')).toContain('not a tax document');
  });

  it('is absent from a live document', async () => {
    const text = await pdfText(await renderDocumentPdf(sampleLanguageModel(305, 'he+en'), 'copy', { signer: dev, at: AT }));
    expect(text).not.toContain('SANDBOX');
    expect(text).not.toContain('מסמך ניסיון');
  });

  it('marks a sandbox draft preview too', async () => {
    const pdf = await renderDocumentPdf(sampleLanguageModel(305, 'en', undefined, { docNumber: null }), 'draft', { at: AT, sandbox: true });
    const text = await pdfText(pdf);
    expectAll(text, ['SANDBOX — NOT A TAX DOCUMENT', 'DRAFT', 'טיוטה', 'Tax Invoice - Draft']);
    expect(pdfSignatureValid(pdf)).toBe(false);
    expect((await pdfInfo(pdf)).Title).toBe('Tax Invoice');
  });
});

describe('the signature statement', () => {
  it('names the development certificate as such', async () => {
    const text = await pdfText(await renderDocumentPdf(sampleLanguageModel(305, 'en'), 'origin', { signer: dev, at: AT }));
    expect(text).toContain('Signed with a self-signed development certificate — not an approved electronic signature');
  });

  it('names another self-signed certificate as not approved', async () => {
    const pdf = await renderDocumentPdf(sampleLanguageModel(305, 'en'), 'origin', { signer: selfSigned, at: AT });
    const text = await pdfText(pdf);
    expect(text).toContain('Signed with a self-signed certificate — not an approved electronic signature');
    expect(text).toContain('Home-made Cert');
    expect(text).not.toContain('development');
  });

  it('names a CA-issued certificate by subject and issuer, without claiming approval', async () => {
    const pdf = await renderDocumentPdf(sampleLanguageModel(305, 'en'), 'origin', { signer: issued, at: AT });
    const text = await pdfText(pdf);
    expect(text).toContain('Electronically signed by Cafe Signer, Neighbourhood Cafe Ltd; certificate issued by Test Root CA, Test Trust Services');
    expect(text).not.toMatch(/approved/);
    expect(checkPdfSignature(pdf)).toMatchObject({ signatureValid: true, digestMatches: true, signerCommonName: 'Cafe Signer' });
    const he = await pdfText(await renderDocumentPdf(sampleLanguageModel(305, 'he'), 'origin', { signer: issued, at: AT }));
    expect(he).toContain('מנפיק התעודה');
    expect(he).not.toContain('מאושרת');
  });
});
