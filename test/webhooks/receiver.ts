import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import forge from 'node-forge';

/** A private CA and a server certificate it signed, for `receiver.test` and 127.0.0.1. */
export function makeCertificates(): { caPem: string; keyPem: string; certPem: string } {
  const pki = forge.pki;
  const rsa = () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return {
      privateKey: pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
      publicKey: pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    };
  };
  const validity = (c: forge.pki.Certificate, serial: string) => {
    c.serialNumber = serial;
    c.validity.notBefore = new Date(Date.now() - 86_400_000);
    c.validity.notAfter = new Date(Date.now() + 7 * 86_400_000);
  };
  const caKeys = rsa();
  const ca = pki.createCertificate();
  ca.publicKey = caKeys.publicKey;
  validity(ca, '01');
  const caName = [{ name: 'commonName', value: 'pinkas test CA' }];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());

  const keys = rsa();
  const cert = pki.createCertificate();
  cert.publicKey = keys.publicKey;
  validity(cert, '02');
  cert.setSubject([{ name: 'commonName', value: 'receiver.test' }]);
  cert.setIssuer(caName);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'receiver.test' },
        { type: 2, value: 'other.test' },
        { type: 7, ip: '127.0.0.1' },
      ],
    },
  ]);
  cert.sign(caKeys.privateKey, forge.md.sha256.create());
  return { caPem: pki.certificateToPem(ca), keyPem: pki.privateKeyToPem(keys.privateKey), certPem: pki.certificateToPem(cert) };
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: any;
}

/** What the receiver answers, by request path: a status, a delay before answering, a redirect. */
export type Behaviour = { status: number; delayMs?: number; location?: string; body?: string };

/** A real HTTPS receiver on 127.0.0.1:0; behaviour per path prefix, every request recorded. */
export class Receiver {
  readonly received: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private server!: Server;
  port = 0;
  caFile = '';
  private dir = '';

  async start(): Promise<void> {
    const certs = makeCertificates();
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'pinkas-wh-'));
    this.caFile = path.join(this.dir, 'ca.pem');
    writeFileSync(this.caFile, certs.caPem);
    this.server = createServer({ key: certs.keyPem, cert: certs.certPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        let body: unknown = null;
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          /* not JSON */
        }
        const p = req.url ?? '/';
        this.received.push({ path: p, headers: req.headers, raw, body });
        const b = this.behaviourOf(p);
        const answer = () => {
          if (res.destroyed) return;
          res.writeHead(b.status, { 'content-type': 'text/plain', ...(b.location ? { location: b.location } : {}) });
          res.end(b.body ?? `answer ${b.status}`);
        };
        if (b.delayMs) setTimeout(answer, b.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Paths starting with `prefix` answer `b` (longest prefix wins); everything else 200. */
  on(prefix: string, b: Behaviour): void {
    this.behaviours.set(prefix, b);
  }

  private behaviourOf(p: string): Behaviour {
    let best: [string, Behaviour] | null = null;
    for (const [prefix, b] of this.behaviours) if (p.startsWith(prefix) && (!best || prefix.length > best[0].length)) best = [prefix, b];
    return best?.[1] ?? { status: 200, body: 'ok' };
  }

  url(p: string, host = 'receiver.test'): string {
    return `https://${host}:${this.port}${p}`;
  }

  to(p: string): Received[] {
    return this.received.filter((r) => r.path === p);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
