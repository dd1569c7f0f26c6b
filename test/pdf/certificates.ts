// Test certificates: a leaf issued by a (test) CA, packed as PKCS#12 with its chain.
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

const rsaKey = () => {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return forge.pki.privateKeyFromPem(privateKey);
};

function certificate(
  subjectCn: string,
  { key, issuer, ca, now }: { key: forge.pki.rsa.PrivateKey; issuer: { cn: string; key: forge.pki.rsa.PrivateKey }; ca: boolean; now: Date },
) {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = ca ? '01' : '02';
  cert.validity.notBefore = new Date(now.getTime() - 86_400_000);
  cert.validity.notAfter = new Date(now.getTime() + 365 * 86_400_000);
  cert.setSubject([
    { name: 'commonName', value: subjectCn },
    { name: 'organizationName', value: ca ? 'Test Trust Services' : 'Neighbourhood Cafe Ltd' },
  ]);
  cert.setIssuer([
    { name: 'commonName', value: issuer.cn },
    { name: 'organizationName', value: 'Test Trust Services' },
  ]);
  cert.setExtensions([
    { name: 'basicConstraints', cA: ca },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, keyCertSign: ca },
  ]);
  cert.sign(issuer.key, forge.md.sha256.create());
  return cert;
}

/** A leaf "Cafe Signer" issued by "Test Root CA", as a P12 with the chain. */
export function caIssuedP12(password: string, now: Date): Buffer {
  const caKey = rsaKey();
  const leafKey = rsaKey();
  const ca = certificate('Test Root CA', { key: caKey, issuer: { cn: 'Test Root CA', key: caKey }, ca: true, now });
  const leaf = certificate('Cafe Signer', { key: leafKey, issuer: { cn: 'Test Root CA', key: caKey }, ca: false, now });
  const p12 = forge.pkcs12.toPkcs12Asn1(leafKey, [leaf, ca], password, { algorithm: '3des' });
  return Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
}
