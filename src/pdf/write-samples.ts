// Writes sample PDFs for the CI check (.ci/checks/pdf.sh) and the docs/ PNGs:
//   npx tsx src/pdf/write-samples.ts <output folder>
// Signed with a throw-away self-signed certificate; prints one file name per line. The issue-21
// samples (languages, currencies, the sandbox mark) go to <output folder>/languages/, out of the
// way of the Hebrew checks that .ci/checks/pdf.sh runs on the top folder.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateSelfSignedP12, parseP12 } from './certificate.ts';
import { pdfSigner } from './sign.ts';
import { renderDocumentPdf } from './render.ts';
import { sampleLanguageModel, sampleModel } from './samples.ts';
import { DOC_TYPE_CODES } from '../documents/doc-types.ts';

const out = process.argv[2];
if (!out) {
  console.error('usage: tsx src/pdf/write-samples.ts <output folder>');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const at = new Date();
const signer = pdfSigner(parseP12(generateSelfSignedP12({ commonName: 'pinkas sample signer', password: 'sample', now: at }), 'sample'), {
  name: 'pinkas',
  development: true,
});
for (const template of ['classic', 'stripe'] as const) {
  for (const docType of DOC_TYPE_CODES) {
    for (const variant of ['origin', 'copy'] as const) {
      const file = path.join(out, `${docType}-${template}-${variant}.pdf`);
      writeFileSync(file, await renderDocumentPdf(sampleModel(docType, template), variant, { signer, at }));
      console.log(file);
    }
  }
}
const draft = path.join(out, 'draft-classic.pdf');
writeFileSync(draft, await renderDocumentPdf(sampleModel(305, 'classic', { docNumber: null }), 'draft', { at }));
console.log(draft);

const languages = path.join(out, 'languages');
mkdirSync(languages, { recursive: true });
const currencies = {
  ILS: { code: 'ILS', minorUnits: 2 },
  USD: { code: 'USD', minorUnits: 2 },
  JPY: { code: 'JPY', minorUnits: 0 },
  KWD: { code: 'KWD', minorUnits: 3 },
};
for (const language of ['he', 'en', 'he+en'] as const) {
  for (const docType of DOC_TYPE_CODES) {
    for (const code of ['ILS', 'USD'] as const) {
      const file = path.join(languages, `${docType}-${language.replace('+', '-')}-${code}-origin.pdf`);
      writeFileSync(file, await renderDocumentPdf(sampleLanguageModel(docType, language, currencies[code]), 'origin', { signer, at }));
      console.log(file);
    }
  }
}
for (const code of ['JPY', 'KWD'] as const) {
  const file = path.join(languages, `320-en-${code}-copy.pdf`);
  writeFileSync(file, await renderDocumentPdf(sampleLanguageModel(320, 'en', currencies[code]), 'copy', { signer, at }));
  console.log(file);
}
for (const language of ['he', 'en', 'he+en'] as const) {
  const file = path.join(languages, `sandbox-305-${language.replace('+', '-')}-origin.pdf`);
  writeFileSync(file, await renderDocumentPdf(sampleLanguageModel(305, language), 'origin', { signer, at, sandbox: true }));
  console.log(file);
}
