// The origin and the copy from one layout pass (renderDocumentPair) say what the two separate renders say:
// the same words but for the print mark, the mark on every page, each file signed on its own.
import { beforeAll, describe, expect, it } from 'vitest';
import { renderDocumentPair, renderDocumentPdf } from '../../src/pdf/render.ts';
import { sampleLanguageModel, sampleModel } from '../../src/pdf/samples.ts';
import { generateSelfSignedP12, parseP12 } from '../../src/pdf/certificate.ts';
import { pdfSigner, type PdfSigner } from '../../src/pdf/sign.ts';
import type { RenderModel } from '../../src/pdf/model.ts';
import { checkPdfSignature, pdfSignatureValid } from './signature-check.ts';
import { pdfInfo, pdfPageTexts, pdfText } from './extract-text.ts';

const AT = new Date('2026-03-01T08:00:00.000Z');
let signer: PdfSigner;
beforeAll(() => {
  signer = pdfSigner(parseP12(generateSelfSignedP12({ commonName: 'pair signer', password: 'x', now: AT }), 'x'), { name: 'pinkas' });
});

/**
 * The characters of a text, sorted: the pair draws the marks after the page's content, so the reading order
 * (and where a reader joins neighbouring runs into one word) differs.
 */
const words = (text: string) => [...text.replace(/\s+/g, '')].sort().join('');

/** A document long enough for three pages. */
const long = (m: RenderModel): RenderModel => ({ ...m, lines: Array.from({ length: 70 }, (_, i) => ({ ...m.lines[0], description: `שורה ${i + 1}` })) });

describe('origin and copy from one layout', () => {
  it.each([
    ['320 classic', sampleModel(320, 'classic'), false],
    ['400 stripe', sampleModel(400, 'stripe'), false],
    ['en, dollars', sampleLanguageModel(320, 'en', { code: 'USD', minorUnits: 2 }), false],
    ['he+en sandbox', sampleLanguageModel(305, 'he+en'), true],
    ['three pages', long(sampleModel(305)), true],
  ] as const)('%s: the words of the separate renders, signed, marked on every page', async (_name, model, sandbox) => {
    const pair = await renderDocumentPair(model, { signer, at: AT, sandbox });
    for (const variant of ['origin', 'copy'] as const) {
      const alone = await renderDocumentPdf(model, variant, { signer, at: AT, sandbox });
      expect(words(await pdfText(pair[variant]))).toEqual(words(await pdfText(alone)));
      expect((await pdfInfo(pair[variant])).Subject).toBe((await pdfInfo(alone)).Subject);
      expect(checkPdfSignature(pair[variant])).toMatchObject({ coversWholeFile: true, digestMatches: true, signatureValid: true });
      expect(checkPdfSignature(pair[variant]).signingTime?.toISOString()).toBe(AT.toISOString());
    }
    // ("מקור" is also in "ניכוי במקור", withholding at source: the copy is told by העתק alone.)
    const [copyMark, originMark] = model.language === 'en' ? ['Copy', 'Original'] : ['העתק', 'מקור'];
    for (const page of await pdfPageTexts(pair.copy)) expect(page).toContain(copyMark);
    for (const page of await pdfPageTexts(pair.origin)) {
      expect(page).toContain(originMark);
      expect(page).not.toContain(copyMark);
    }
    expect(pair.origin.equals(pair.copy)).toBe(false);
  });

  it('fails each file alone on a flipped byte', async () => {
    const pair = await renderDocumentPair(sampleModel(330, 'stripe'), { signer, at: AT });
    const flipped = Buffer.from(pair.copy);
    flipped[flipped.length - 200] ^= 1;
    expect(pdfSignatureValid(flipped)).toBe(false);
    expect(pdfSignatureValid(pair.origin)).toBe(true);
  });

  it('refuses to render the pair unsigned', async () => {
    await expect(renderDocumentPair(sampleModel(305), { at: AT })).rejects.toThrow(/signed/);
  });
});
