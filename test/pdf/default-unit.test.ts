// A line sent without a unit is stored with the Hebrew default (יחידה, src/documents/draft-input.ts DEFAULT_UNIT):
// an English document prints it as "unit"; Hebrew and bilingual documents keep the stored word, and a unit
// the dealer wrote is printed as written in every language.
import { beforeAll, describe, expect, it } from 'vitest';
import { renderDocumentPdf } from '../../src/pdf/render.ts';
import { sampleLanguageModel } from '../../src/pdf/samples.ts';
import { generateSelfSignedP12, parseP12 } from '../../src/pdf/certificate.ts';
import { pdfSigner, type PdfSigner } from '../../src/pdf/sign.ts';
import { DEFAULT_UNIT } from '../../src/documents/draft-input.ts';
import type { Language, RenderModel } from '../../src/pdf/model.ts';
import { pdfText } from './extract-text.ts';

const AT = new Date('2026-03-01T08:00:00.000Z');
let dev: PdfSigner;
beforeAll(() => {
  dev = pdfSigner(parseP12(generateSelfSignedP12({ commonName: 'pinkas dev', password: 'x', now: AT }), 'x'), { name: 'pinkas', development: true });
});

const withUnits = (lang: Language, units: string[]): RenderModel => {
  const base = sampleLanguageModel(305, lang);
  return { ...base, lines: base.lines.map((l, i) => ({ ...l, description: `Item ${i + 1}`, unit: units[i] ?? DEFAULT_UNIT })) };
};

describe('the default unit', () => {
  it('is printed in English on an English document, and a written unit as written', async () => {
    const text = await pdfText(await renderDocumentPdf(withUnits('en', [DEFAULT_UNIT, 'hour', 'ק"ג']), 'origin', { signer: dev, at: AT }));
    expect(text).toMatch(/\d unit\b/);
    expect(text).toContain('hour');
    expect(text).toContain('ק"ג');
    expect(text).not.toContain(DEFAULT_UNIT);
  });

  it.each(['he', 'he+en'] as const)('keeps the stored Hebrew word on a %s document', async (lang) => {
    const text = await pdfText(await renderDocumentPdf(withUnits(lang, [DEFAULT_UNIT, 'hour', 'ק"ג']), 'origin', { signer: dev, at: AT }));
    expect(text).toContain(DEFAULT_UNIT);
    expect(text).toContain('hour');
  });
});
