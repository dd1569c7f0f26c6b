// An independent check of a PDF's embedded CMS signature (not the code that signs): the byte range
// covers the whole file except the /Contents hole, the CMS messageDigest equals the SHA-256 of the
// covered bytes, and the RSA signature over the signed attributes verifies with the embedded
// certificate (node:crypto, not forge's signer).
import { createHash, verify as cryptoVerify } from 'node:crypto';
import forge from 'node-forge';

export interface SignatureReport {
  coversWholeFile: boolean;
  digestMatches: boolean;
  signatureValid: boolean;
  signerCommonName: string | null;
  signingTime: Date | null;
}

/**
 * The DER value at the start of the zero-padded /Contents, cut by its own length header. (Stripping
 * trailing zero bytes instead would also cut a signature that happens to end in 0x00: 1 in 256.)
 */
function derPrefix(padded: Buffer): Buffer {
  if (padded.length < 2) return padded;
  const first = padded[1];
  if (first < 0x80) return padded.subarray(0, 2 + first);
  const n = first & 0x7f;
  return padded.subarray(0, 2 + n + padded.readUIntBE(2, n));
}

export function extractSignature(pdf: Buffer): { byteRange: number[]; cms: Buffer; signedData: Buffer } {
  const text = pdf.toString('latin1');
  const m = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text);
  if (!m) throw new Error('no /ByteRange: the PDF is not signed');
  const byteRange = m.slice(1, 5).map(Number);
  const [a, b, c, d] = byteRange;
  const hole = text.slice(a + b, c);
  const hex = /^<([0-9a-fA-F]+)>$/.exec(hole.trim());
  if (!hex) throw new Error('the byte range hole is not a hex string');
  const cms = derPrefix(Buffer.from(hex[1], 'hex'));
  const signedData = Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]);
  return { byteRange, cms, signedData };
}

export function checkPdfSignature(pdf: Buffer): SignatureReport {
  const { byteRange, cms, signedData } = extractSignature(pdf);
  const [a, b, c, d] = byteRange;
  const coversWholeFile = a === 0 && c + d === pdf.length && c > a + b;

  const asn1 = forge.asn1.fromDer(forge.util.createBuffer(cms.toString('binary')), { parseAllBytes: false } as unknown as boolean);
  // ContentInfo { contentType, [0] SignedData }
  const signedDataSeq = ((asn1.value as forge.asn1.Asn1[])[1].value as forge.asn1.Asn1[])[0];
  const parts = signedDataSeq.value as forge.asn1.Asn1[];
  const certsNode = parts.find((p) => p.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && p.type === 0);
  const signerInfos = parts[parts.length - 1].value as forge.asn1.Asn1[];
  const signerInfo = signerInfos[0].value as forge.asn1.Asn1[];
  const attrsNode = signerInfo.find((p) => p.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && p.type === 0);
  const encryptedDigest = signerInfo[signerInfo.length - 1];
  if (!certsNode || !attrsNode) throw new Error('CMS without certificates or signed attributes');

  const cert = forge.pki.certificateFromAsn1((certsNode.value as forge.asn1.Asn1[])[0]);
  let messageDigest: string | null = null;
  let signingTime: Date | null = null;
  for (const attr of attrsNode.value as forge.asn1.Asn1[]) {
    const [oidNode, valuesNode] = attr.value as forge.asn1.Asn1[];
    const oid = forge.asn1.derToOid(oidNode.value as string);
    const value = (valuesNode.value as forge.asn1.Asn1[])[0];
    if (oid === forge.pki.oids.messageDigest) messageDigest = Buffer.from(value.value as string, 'binary').toString('hex');
    if (oid === forge.pki.oids.signingTime) signingTime = forge.asn1.utcTimeToDate(value.value as string);
  }
  const digestMatches = messageDigest === createHash('sha256').update(signedData).digest('hex');

  // The signature is over the DER of the signed attributes as a SET (tag 0x31), not [0].
  const attrsDer = Buffer.from(forge.asn1.toDer(attrsNode).getBytes(), 'binary');
  attrsDer[0] = 0x31;
  const signature = Buffer.from(encryptedDigest.value as string, 'binary');
  const signatureValid = cryptoVerify('sha256', attrsDer, forge.pki.certificateToPem(cert), signature);
  const cn = cert.subject.getField('CN');
  return { coversWholeFile, digestMatches, signatureValid, signerCommonName: cn ? String(cn.value) : null, signingTime };
}

/** True only when every part of the check passes. */
export function pdfSignatureValid(pdf: Buffer): boolean {
  try {
    const r = checkPdfSignature(pdf);
    return r.coversWholeFile && r.digestMatches && r.signatureValid;
  } catch {
    return false;
  }
}
