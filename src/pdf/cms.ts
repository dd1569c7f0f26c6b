// A detached CMS SignedData (RFC 5652, what adbe.pkcs7.detached expects) built from DER pieces with node:crypto
// doing the hashing and the RSA operation. The certificate-dependent parts are encoded once per identity, so a
// signature costs one SHA-256 of the file, one RSA-2048 private operation and a few small buffer concatenations.
import { createHash, sign as rsaSign, type KeyObject } from 'node:crypto';

/** DER: a tag, its length, its content. */
function der(tag: number, ...content: Buffer[]): Buffer {
  const body = content.length === 1 ? content[0] : Buffer.concat(content);
  const n = body.length;
  const head = n < 0x80 ? [tag, n] : n < 0x100 ? [tag, 0x81, n] : n < 0x10000 ? [tag, 0x82, n >> 8, n & 0xff] : [tag, 0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  return Buffer.concat([Buffer.from(head), body]);
}

const SEQUENCE = 0x30;
const SET = 0x31;
const oid = (hex: string) => Buffer.from(hex, 'hex');
const OID = {
  data: oid('06092a864886f70d010701'),
  signedData: oid('06092a864886f70d010702'),
  contentType: oid('06092a864886f70d010903'),
  messageDigest: oid('06092a864886f70d010904'),
  signingTime: oid('06092a864886f70d010905'),
};
/** AlgorithmIdentifiers with NULL parameters, as forge (and most signers) write them. */
const SHA256_ALG = oid('300d06096086480165030402010500');
const RSA_ALG = oid('300d06092a864886f70d0101010500');
const INTEGER_1 = oid('020101');

/** UTCTime (years 1950–2049) or GeneralizedTime, as RFC 5652 §11.3 asks. */
function signingTimeDer(at: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, '0');
  const year = at.getUTCFullYear();
  const rest = `${p(at.getUTCMonth() + 1)}${p(at.getUTCDate())}${p(at.getUTCHours())}${p(at.getUTCMinutes())}${p(at.getUTCSeconds())}Z`;
  return year >= 1950 && year < 2050 ? der(0x17, Buffer.from(`${p(year % 100)}${rest}`)) : der(0x18, Buffer.from(`${year}${rest}`));
}

/** What a signer needs of its identity, in DER: the chain (leaf first) and the leaf's issuer and serial number. */
export interface CmsIdentity {
  key: KeyObject;
  certificates: Buffer[];
  /** The leaf's issuer Name (DER SEQUENCE) and its serial number (DER INTEGER). */
  issuer: Buffer;
  serial: Buffer;
}

/** Encodes the parts that never change for an identity; `signature(digest, at)` then builds one CMS. */
export function cmsSigner(id: CmsIdentity): (contentDigest: Buffer, at: Date) => Buffer {
  const certificates = der(0xa0, ...id.certificates);
  const sid = der(SEQUENCE, id.issuer, id.serial);
  const contentTypeAttr = der(SEQUENCE, OID.contentType, der(SET, OID.data));
  return (contentDigest, at) => {
    // DER orders a SET OF by encoding; these three attributes already are in that order (lengths 0x18 < 0x1c < 0x2f).
    const attrs = [
      contentTypeAttr,
      der(SEQUENCE, OID.signingTime, der(SET, signingTimeDer(at))),
      der(SEQUENCE, OID.messageDigest, der(SET, der(0x04, contentDigest))),
    ];
    const signedAttrs = der(SET, ...attrs);
    // The signature covers the attributes encoded as a SET; the SignerInfo carries them as [0] IMPLICIT.
    const signature = rsaSign('sha256', signedAttrs, id.key);
    const signerInfo = der(SEQUENCE, INTEGER_1, sid, SHA256_ALG, der(0xa0, ...attrs), RSA_ALG, der(0x04, signature));
    const signedData = der(SEQUENCE, INTEGER_1, der(SET, SHA256_ALG), der(SEQUENCE, OID.data), certificates, der(SET, signerInfo));
    return der(SEQUENCE, OID.signedData, der(0xa0, signedData));
  };
}

const BYTE_RANGE = Buffer.from('/ByteRange [0 /********** /********** /**********]');
const CONTENTS = Buffer.from('/Contents <');

/**
 * Fills the signature placeholder of a finished PDF in place: the byte range (everything but the /Contents
 * hole), then the CMS over the SHA-256 of those bytes, hex, in the zero-padded hole. Answers the same buffer.
 */
export function fillSignature(pdf: Buffer, cms: (digest: Buffer) => Buffer): Buffer {
  const at = pdf.lastIndexOf(BYTE_RANGE);
  if (at < 0) throw new Error('no signature placeholder (/ByteRange) in the PDF');
  const holeStart = pdf.indexOf(CONTENTS, at + BYTE_RANGE.length) + CONTENTS.length - 1;
  const holeEnd = pdf.indexOf('>', holeStart) + 1;
  let range = `/ByteRange [0 ${holeStart} ${holeEnd} ${pdf.length - holeEnd}]`;
  range += ' '.repeat(BYTE_RANGE.length - range.length);
  pdf.write(range, at, 'latin1');
  const digest = createHash('sha256').update(pdf.subarray(0, holeStart)).update(pdf.subarray(holeEnd)).digest();
  const hex = cms(digest).toString('hex');
  if (hex.length > holeEnd - holeStart - 2) throw new Error(`the signature (${hex.length / 2} bytes) does not fit its placeholder`);
  pdf.write(hex, holeStart + 1, 'latin1');
  return pdf;
}
