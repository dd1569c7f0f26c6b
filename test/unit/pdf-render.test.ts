import { beforeAll, describe, expect, it } from 'vitest';
import { renderDocumentPdf } from '../../src/pdf/render.ts';
import { sampleModel } from '../../src/pdf/samples.ts';
import { generateSelfSignedP12, parseP12 } from '../../src/pdf/certificate.ts';
import { pdfSigner, type PdfSigner } from '../../src/pdf/sign.ts';
import type { DocType } from '../../src/pdf/hebrew.ts';
import { DOC_TYPE_CODES, DOC_TYPES } from '../../src/documents/doc-types.ts';
import type { RenderModel } from '../../src/pdf/model.ts';
import { checkPdfSignature, pdfSignatureValid } from '../pdf/signature-check.ts';
import { pdfPageCount, pdfText } from '../pdf/extract-text.ts';

const AT = new Date('2026-03-01T08:00:00.000Z');
const reverse = (s: string) => [...s].reverse().join('');
let signer: PdfSigner;

beforeAll(() => {
  const p12 = generateSelfSignedP12({ commonName: 'pinkas test signer', password: 'secret', now: AT });
  signer = pdfSigner(parseP12(p12, 'secret'), { name: 'pinkas' });
});

// The printed titles, pinned word for word in test/unit/doc-types.test.ts.
const TITLES = Object.fromEntries(DOC_TYPE_CODES.map((c) => [c, DOC_TYPES[c].titles.he])) as Record<DocType, string>;

describe.each(['classic', 'stripe'] as const)('template %s', (template) => {
  it.each([10, 100, 200, 210, 300, 305, 320, 330, 400] as const)('renders a signed %i with logical-order Hebrew and the right amounts', async (docType) => {
    const model = sampleModel(docType, template);
    const pdf = await renderDocumentPdf(model, 'origin', { signer, at: AT });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(pdf);

    // Hebrew reads in logical order, never reversed.
    expect(text).toContain('קפה השכונה בע"מ');
    expect(text).not.toContain(reverse('קפה השכונה'));
    expect(text).toContain(`${TITLES[docType]} מס' ${model.docNumber}`);
    expect(text).toContain('מסמך ממוחשב');
    expect(text).toContain('מקור');
    expect(text).not.toContain('העתק');
    expect(text).toContain('516179157');
    expect(text).toContain('01/03/2026');
    expect(text).toContain('לכבוד: אלפא טכנולוגיות בע"מ');
    // Latin inside Hebrew is not reversed.
    expect(text).toContain('Alpha Tech');
    expect(text).toContain('office@cafe.example');

    if (docType === 400) {
      expect(text).toContain('₪1,234.56');
      expect(text).toContain('מזומן');
      expect(text).toContain('פייבוקס');
      expect(text).toContain('אפליקציית תשלום');
    } else {
      expect(text).toContain('סה"כ לפני מע"מ');
      expect(text).toContain('₪2,552.00');
      expect(text).toContain('מע"מ 18%');
      expect(text).toContain('₪459.36');
      expect(text).toContain('סה"כ כולל מע"מ');
      expect(text).toContain('₪3,011.36');
      expect(text).toContain('שירותי קייטרינג לאירוע חברה');
      expect(text).toContain('Croissant');
    }
    if (docType === 305 || docType === 320) expect(text).toContain('מספר הקצאה: 202603018765');
    if (docType === 320) {
      expect(text).toContain("המחאה מס' 1001, בנק 12, סניף 345, חשבון 678901");
      expect(text).toContain('ישראכרט, Visa, סוג עסקה: תשלומים');
      expect(text).toContain('ביט');
      expect(text).toContain('ניכוי במקור');
      expect(text).toContain('₪961.36');
    }
    if (docType === 330) expect(text).toContain("זיכוי עבור: חשבונית מס מס' 1001");
    // A transaction invoice shows VAT for information and says it is not a tax invoice; no other type says so.
    if (docType === 300) expect(text).toContain('זו אינה חשבונית מס');
    else expect(text).not.toContain('אינה חשבונית מס');

    const sig = checkPdfSignature(pdf);
    expect(sig).toMatchObject({ coversWholeFile: true, digestMatches: true, signatureValid: true, signerCommonName: 'pinkas test signer' });
    expect(sig.signingTime?.toISOString()).toBe(AT.toISOString());
  });
});

describe('variants and signature', () => {
  it('says העתק on a copy', async () => {
    const text = await pdfText(await renderDocumentPdf(sampleModel(305), 'copy', { signer, at: AT }));
    expect(text).toContain('העתק');
    expect(text).not.toContain('מקור');
  });

  it('a draft preview says טיוטה and carries no signature', async () => {
    const pdf = await renderDocumentPdf(sampleModel(305, 'classic', { docNumber: null }), 'draft', { at: AT });
    const text = await pdfText(pdf);
    expect(text).toContain('טיוטה');
    expect(text).toContain('חשבונית מס - טיוטה');
    expect(text).not.toContain('מקור');
    expect(pdf.toString('latin1')).not.toContain('/ByteRange');
    expect(pdfSignatureValid(pdf)).toBe(false);
  });

  it('refuses to render an origin or copy without a signer', async () => {
    await expect(renderDocumentPdf(sampleModel(305), 'origin', { at: AT })).rejects.toThrow(/signed/);
  });

  it('one flipped byte anywhere in the signed range breaks the signature', async () => {
    const pdf = await renderDocumentPdf(sampleModel(320), 'origin', { signer, at: AT });
    expect(pdfSignatureValid(pdf)).toBe(true);
    const text = pdf.toString('latin1');
    for (const at of [10, Math.floor(pdf.length / 2), text.indexOf('/ByteRange') - 5, pdf.length - 10]) {
      if (at < 0) continue;
      const tampered = Buffer.from(pdf);
      tampered[at] ^= 0x01;
      const r = (() => {
        try {
          return checkPdfSignature(tampered);
        } catch {
          return null;
        }
      })();
      expect(r === null || !r.digestMatches || !r.coversWholeFile).toBe(true);
      expect(pdfSignatureValid(tampered)).toBe(false);
    }
  });

  it('a flipped byte inside the CMS blob fails the signature check', async () => {
    const pdf = await renderDocumentPdf(sampleModel(305), 'origin', { signer, at: AT });
    const text = pdf.toString('latin1');
    const m = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)/.exec(text)!;
    const holeStart = Number(m[1]) + Number(m[2]);
    const tampered = Buffer.from(pdf);
    // Change one hex digit near the end of the signature value (the RSA signature bytes).
    const sigEnd = text.indexOf('0000', holeStart) - 4;
    tampered[sigEnd] = tampered[sigEnd] === 0x61 ? 0x62 : 0x61;
    expect(pdfSignatureValid(tampered)).toBe(false);
  });
});

describe('layout edge cases', () => {
  it('flows many lines onto further pages with the head repeated and page numbers', async () => {
    const base = sampleModel(305);
    const lines = Array.from({ length: 70 }, (_, i) => ({
      description: `פריט מספר ${i + 1}`,
      quantity: 1,
      unitPrice: 100,
      lineDiscount: 0,
      amount: 100,
      unit: null,
      sku: null,
    }));
    const model: RenderModel = { ...base, lines, totals: { ...base.totals, discountAmount: 0, totalExVat: 7000, vatAmount: 1260, totalIncVat: 8260 } };
    const pdf = await renderDocumentPdf(model, 'origin', { signer, at: AT });
    const pages = await pdfPageCount(pdf);
    expect(pages).toBeGreaterThanOrEqual(2);
    const text = await pdfText(pdf);
    expect(text).toContain('פריט מספר 70');
    expect(text).toContain(`עמוד ${pages} מתוך ${pages}`);
    expect(text.split('מחיר ליחידה').length - 1).toBe(pages);
    expect(pdfSignatureValid(pdf)).toBe(true);
  });

  it('prints an anonymous receipt without a buyer, a gross-priced invoice and an exempt dealer', async () => {
    const anon = await pdfText(await renderDocumentPdf(sampleModel(400, 'stripe', { party: null }), 'origin', { signer, at: AT }));
    expect(anon).not.toContain('לכבוד');
    const gross = await pdfText(await renderDocumentPdf(sampleModel(305, 'classic', { priceMode: 'gross' }), 'copy', { signer, at: AT }));
    expect(gross).toContain('המחירים כוללים מע"מ');
    const m = sampleModel(305);
    const patur = await pdfText(await renderDocumentPdf({ ...m, dealer: { ...m.dealer, dealerType: 'patur' }, vatRateBp: 0 }, 'origin', { signer, at: AT }));
    expect(patur).toContain('עוסק פטור 516179157');
    expect(patur).toContain('עוסק פטור - ללא מע"מ');
  });

  it('prints without a logo when the stored logo is not an image', async () => {
    const m = sampleModel(305);
    const pdf = await renderDocumentPdf({ ...m, branding: { ...m.branding, logo: Buffer.from('not an image') } }, 'origin', { signer, at: AT });
    expect(pdfSignatureValid(pdf)).toBe(true);
  });
});
