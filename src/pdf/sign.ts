import { createPrivateKey } from 'node:crypto';
import forge from 'node-forge';
import type { SigningIdentity } from './certificate.ts';
import { cmsSigner, fillSignature } from './cms.ts';
import { addSignaturePlaceholder } from './placeholder.ts';
import type { SignatureInfo } from './model.ts';

/** Room reserved in the PDF for the CMS blob (hex doubles it); a 2048-bit key with a 3-cert chain fits. */
export const SIGNATURE_LENGTH = 8192;

const toDer = (node: forge.asn1.Asn1) => Buffer.from(forge.asn1.toDer(node).getBytes(), 'binary');

/**
 * The CMS signer of an identity parsed once: forge reads the certificates (once), node:crypto hashes and
 * does the RSA operation (forge's are pure JavaScript). Detached CMS, SHA-256, the signing time as a
 * signed attribute — what adbe.pkcs7.detached / PAdES readers expect.
 */
export function identityCms(identity: SigningIdentity): (digest: Buffer, at: Date) => Buffer {
  const cert = identity.certificate;
  return cmsSigner({
    key: createPrivateKey(forge.pki.privateKeyToPem(identity.privateKey)),
    certificates: identity.chain.map((c) => toDer(forge.pki.certificateToAsn1(c))),
    issuer: toDer(forge.pki.distinguishedNameToAsn1(cert.issuer)),
    serial: toDer(forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.INTEGER, false, forge.util.hexToBytes(cert.serialNumber))),
  });
}

export interface PdfSigner {
  /** Adds the signature dictionary to a pdfkit document before it ends (reason: the /Reason text). */
  addPlaceholder(doc: PDFKit.PDFDocument, at: Date, reason?: string): void;
  /** Fills the placeholder of the finished PDF bytes (in place: the buffer is the caller's to give up). */
  sign(pdf: Buffer, at: Date): Buffer;
  /** The signer's certificate subject common name (for the README / logs). */
  readonly subject: string;
  /** What the page says about the signature. */
  readonly signature: SignatureInfo;
}

/** "CN, O" of a certificate name, or whatever of the two it has. */
function describeName(name: forge.pki.Certificate['subject']): string {
  const cn = name.getField('CN')?.value as string | undefined;
  const o = name.getField('O')?.value as string | undefined;
  if (cn && o && o !== cn) return `${cn}, ${o}`;
  return cn ?? o ?? 'unknown';
}

/** True when the certificate names itself as issuer and its own key verifies it. */
export function isSelfSigned(cert: forge.pki.Certificate): boolean {
  if (!cert.isIssuer(cert)) return false;
  try {
    return cert.verify(cert);
  } catch {
    return false;
  }
}

/**
 * `development`: the identity is our generated self-signed certificate (signing.ts says so); any
 * other self-signed certificate is still named self-signed; otherwise by subject and issuer.
 */
export function signatureInfo(identity: SigningIdentity, development = false): SignatureInfo {
  const cert = identity.certificate;
  const subject = describeName(cert.subject);
  const issuer = describeName(cert.issuer);
  if (development) return { kind: 'development', subject, issuer };
  return { kind: isSelfSigned(cert) ? 'self-signed' : 'issued', subject, issuer };
}

export function pdfSigner(identity: SigningIdentity, info: { name: string; location?: string; development?: boolean }): PdfSigner {
  const cms = identityCms(identity);
  const cn = identity.certificate.subject.getField('CN');
  return {
    subject: cn ? String(cn.value) : 'unknown',
    signature: signatureInfo(identity, info.development ?? false),
    addPlaceholder(doc, at, reason) {
      addSignaturePlaceholder(doc, {
        reason: reason ?? 'Computerized tax document',
        // Latin only: the dictionary strings are written as PDFDocEncoding.
        name: info.name.replace(/[^\x20-\x7e]/g, '').trim() || 'pinkas',
        location: info.location ?? 'IL',
        signingTime: at,
        length: SIGNATURE_LENGTH,
        appName: 'pinkas',
      });
    },
    // A trailing newline after %%EOF is dropped, as @signpdf did, so the byte range ends the file.
    sign: (pdf, at) => fillSignature(pdf[pdf.length - 1] === 0x0a ? pdf.subarray(0, pdf.length - 1) : pdf, (digest) => cms(digest, at)),
  };
}
