// Writes sample PDFs for the CI check (.ci/checks/pdf.sh) and the docs/ PNGs:
//   npx tsx src/pdf/write-samples.ts <output folder>
// Signed with a throw-away self-signed certificate; prints one file name per line.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateSelfSignedP12, parseP12 } from './certificate.ts';
import { pdfSigner } from './sign.ts';
import { renderDocumentPdf } from './render.ts';
import { sampleModel } from './samples.ts';

const out = process.argv[2];
if (!out) {
  console.error('usage: tsx src/pdf/write-samples.ts <output folder>');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const at = new Date();
const signer = pdfSigner(parseP12(generateSelfSignedP12({ commonName: 'pinkas sample signer', password: 'sample', now: at }), 'sample'), { name: 'pinkas' });
for (const template of ['classic', 'stripe'] as const) {
  for (const docType of [305, 320, 330, 400] as const) {
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
