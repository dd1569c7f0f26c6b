import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** A signing identity parsed once: the key and the certificate chain (leaf first). */
export interface SigningIdentity {
  privateKey: forge.pki.rsa.PrivateKey;
  certificate: forge.pki.Certificate;
  chain: forge.pki.Certificate[];
}

/** Parses a PKCS#12 file once; answers the key and the certificate that matches it. */
export function parseP12(p12: Uint8Array, password: string): SigningIdentity {
  const asn1 = forge.asn1.fromDer(forge.util.createBuffer(Buffer.from(p12).toString('binary')));
  const parsed = forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
  const keyBags = [
    ...(parsed.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag] ?? []),
    ...(parsed.getBags({ bagType: forge.pki.oids.keyBag })[forge.pki.oids.keyBag] ?? []),
  ];
  const privateKey = keyBags.find((b) => b.key)?.key;
  if (!privateKey) throw new Error('the PKCS#12 file holds no private key');
  const chain = (parsed.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? [])
    .map((b) => b.cert)
    .filter((c): c is forge.pki.Certificate => Boolean(c));
  const certificate = chain.find((c) => {
    const pub = c.publicKey as forge.pki.rsa.PublicKey;
    return pub.n.compareTo(privateKey.n) === 0 && pub.e.compareTo(privateKey.e) === 0;
  });
  if (!certificate) throw new Error('no certificate in the PKCS#12 file matches its private key');
  return { privateKey, certificate, chain: [certificate, ...chain.filter((c) => c !== certificate)] };
}

/**
 * A self-signed RSA-2048 certificate for development and the sandbox, packed as PKCS#12.
 * The key pair comes from node:crypto (forge's pure-JS key generation takes seconds).
 */
export function generateSelfSignedP12(opts: { commonName: string; password: string; now: Date; years?: number }): Buffer {
  const { privateKey: pem } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const key = forge.pki.privateKeyFromPem(pem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = '01' + randomBytes(15).toString('hex');
  cert.validity.notBefore = new Date(opts.now.getTime() - 24 * 3600_000);
  cert.validity.notAfter = new Date(opts.now.getTime() + (opts.years ?? 10) * 365 * 24 * 3600_000);
  const attrs = [
    { name: 'commonName', value: opts.commonName },
    { name: 'organizationName', value: 'pinkas (self-signed, not for production)' },
    { name: 'countryName', value: 'IL' },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key, forge.md.sha256.create());
  const p12 = forge.pkcs12.toPkcs12Asn1(key, [cert], opts.password, { algorithm: '3des', friendlyName: opts.commonName });
  return Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
}
