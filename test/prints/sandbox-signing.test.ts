// Truthful PDFs (issue 21): a configured certificate signs live documents only; the sandbox always
// signs with the self-signed development certificate and marks every page as no tax document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { checkPdfSignature, pdfSignatureValid } from '../pdf/signature-check.ts';
import { pdfInfo, pdfText } from '../pdf/extract-text.ts';
import { caIssuedP12 } from '../pdf/certificates.ts';
import { issueDoc, line, pdfPath, renderRunner, tempDataDir } from './helpers.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  const dataDir = tempDataDir();
  const p12 = path.join(dataDir, 'business-signer.p12');
  writeFileSync(p12, caIssuedP12('p12-secret', new Date()));
  env = await createTestEnv({ env: { DATA_DIR: dataDir, PDF_SIGNING_P12_PATH: p12, PDF_SIGNING_P12_PASSWORD: 'p12-secret' } });
  a = await env.account();
});
afterAll(async () => env?.close());

async function printed(key: string, mode: 'live' | 'sandbox') {
  const b = await env.business(key);
  const doc = await issueDoc(env, key, b.id);
  expect(await renderRunner(env).runDue(mode)).toBe(1);
  const res = await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key });
  expect(res.status).toBe(200);
  return res.raw;
}

describe('signing per mode with a configured certificate', () => {
  it('live documents are signed with it and say who signed them and who issued the certificate', async () => {
    const pdf = await printed(a.live, 'live');
    expect(checkPdfSignature(pdf)).toMatchObject({ signatureValid: true, digestMatches: true, signerCommonName: 'Cafe Signer' });
    const text = await pdfText(pdf);
    expect(text).toContain('חתום אלקטרונית על ידי');
    expect(text).toContain('Cafe Signer');
    expect(text).toContain('Test Root CA');
    expect(text).not.toContain('מסמך ניסיון');
    expect(text).not.toContain('מאושרת');
    expect((await pdfInfo(pdf)).Subject).not.toContain('מסמך ניסיון');
  });

  it('sandbox documents never use it: self-signed development certificate, and the sandbox mark', async () => {
    const pdf = await printed(a.test, 'sandbox');
    expect(pdfSignatureValid(pdf)).toBe(true);
    expect(checkPdfSignature(pdf).signerCommonName).toMatch(/self-signed/);
    const text = await pdfText(pdf);
    expect(text).toContain('מסמך ניסיון — אינו מסמך מס');
    expect(text).toContain('נחתם בתעודת פיתוח בחתימה עצמית - אינה חתימה אלקטרונית מאושרת');
    expect(text).not.toContain('Cafe Signer');
    const info = await pdfInfo(pdf);
    expect(info).toMatchObject({ Title: 'חשבונית מס 1', Creator: 'pinkas', Producer: 'pinkas', Language: 'he' });
    expect(info.Subject).toContain('מסמך ניסיון — אינו מסמך מס');
  });

  it('a sandbox draft preview carries the mark, a live one does not', async () => {
    for (const [key, marked] of [
      [a.test, true],
      [a.live, false],
    ] as const) {
      const b = await env.business(key);
      const draft = await env.call('POST', `/v1/businesses/${b.id}/documents`, { key, body: { docType: 305, lines: [line()] } });
      const res = await env.call('POST', pdfPath(b.id, draft.body.document.id, 'print'), { key });
      expect(res.headers['x-print-variant']).toBe('draft');
      const text = await pdfText(res.raw);
      expect(text).toContain('טיוטה');
      expect(text.includes('מסמך ניסיון — אינו מסמך מס')).toBe(marked);
    }
  });
});
