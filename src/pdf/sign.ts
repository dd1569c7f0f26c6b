import { constants, createPrivateKey, privateEncrypt, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { SignPdf, Signer } from '@signpdf/signpdf';
import { pdfkitAddPlaceholder } from '@signpdf/placeholder-pdfkit';
import type { SigningIdentity } from './certificate.ts';
import type { SignatureInfo } from './model.ts';

/** DER prefix of a DigestInfo for SHA-256 (RFC 8017 §9.2 note 1). */
const SHA256_DIGEST_INFO_PREFIX = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/** Room reserved in the PDF for the CMS blob (hex doubles it); a 2048-bit key with a 3-cert chain fits. */
export const SIGNATURE_LENGTH = 8192;

/**
 * A @signpdf Signer over an identity parsed once. (P12Signer re-parses and re-derives the key on
 * every call and is single-use; this one signs in ~19 ms.) Detached CMS, SHA-256, with the
 * signing time as an authenticated attribute — what adbe.pkcs7.detached / PAdES readers expect.
 */
export class IdentitySigner extends Signer {
  private readonly nativeKey: KeyObject;

  constructor(private readonly identity: SigningIdentity) {
    super();
    this.nativeKey = createPrivateKey(forge.pki.privateKeyToPem(identity.privateKey));
  }

  /**
   * RSASSA-PKCS1-v1_5 over the digest forge computed, with node's native RSA: forge builds the CMS
   * structure, but its pure-JavaScript private-key operation is the slow part of signing.
   */
  private readonly nativeRsa = {
    sign: (md: forge.md.MessageDigest) => {
      const digestInfo = Buffer.concat([SHA256_DIGEST_INFO_PREFIX, Buffer.from(md.digest().getBytes(), 'binary')]);
      return privateEncrypt({ key: this.nativeKey, padding: constants.RSA_PKCS1_PADDING }, digestInfo).toString('binary');
    },
  };

  override async sign(pdfBuffer: Buffer, signingTime?: Date): Promise<Buffer> {
    const p7 = forge.pkcs7.createSignedData();
    p7.content = forge.util.createBuffer(pdfBuffer.toString('binary'));
    for (const cert of this.identity.chain) p7.addCertificate(cert);
    p7.addSigner({
      key: this.nativeRsa as unknown as forge.pki.rsa.PrivateKey,
      certificate: this.identity.certificate,
      digestAlgorithm: forge.pki.oids.sha256,
      authenticatedAttributes: [
        { type: forge.pki.oids.contentType, value: forge.pki.oids.data },
        // forge types want a string here; at runtime it takes a Date.
        { type: forge.pki.oids.signingTime, value: (signingTime ?? new Date()) as unknown as string },
        { type: forge.pki.oids.messageDigest },
      ],
    });
    p7.sign({ detached: true });
    return Buffer.from(forge.asn1.toDer(p7.toAsn1()).getBytes(), 'binary');
  }
}

export interface PdfSigner {
  /** Adds the signature dictionary to a pdfkit document before it ends (reason: the /Reason text). */
  addPlaceholder(doc: PDFKit.PDFDocument, at: Date, reason?: string): void;
  /** Fills the placeholder of the finished PDF bytes. */
  sign(pdf: Buffer, at: Date): Promise<Buffer>;
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
  const signer = new IdentitySigner(identity);
  const signPdf = new SignPdf();
  const cn = identity.certificate.subject.getField('CN');
  return {
    subject: cn ? String(cn.value) : 'unknown',
    signature: signatureInfo(identity, info.development ?? false),
    addPlaceholder(doc, at, reason) {
      pdfkitAddPlaceholder({
        pdf: doc,
        pdfBuffer: Buffer.alloc(0),
        reason: reason ?? 'Computerized tax document',
        contactInfo: '',
        // Latin only: the dictionary strings are written as PDFDocEncoding.
        name: info.name.replace(/[^\x20-\x7e]/g, '').trim() || 'pinkas',
        location: info.location ?? 'IL',
        signingTime: at,
        signatureLength: SIGNATURE_LENGTH,
        appName: 'pinkas',
      });
    },
    sign: (pdf, at) => signPdf.sign(pdf, signer, at),
  };
}
