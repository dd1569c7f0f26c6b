import { mkdirSync, readFileSync, writeFileSync, linkSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Mode } from '../platform/db/engine.ts';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { generateSelfSignedP12 } from '../pdf/index.ts';
import type { SigningSource } from './render-task.ts';

/** The self-signed certificate's password: it lives next to the file, so it protects nothing more. */
const SELF_SIGNED_PASSWORD = 'pinkas-self-signed';

export class SigningUnconfigured extends Error {}

// The certificates read (or generated) by this process; the render threads parse each once (render-task.ts).
const sources = new Map<string, SigningSource>();

export function selfSignedPath(dataDir: string): string {
  return path.join(dataDir, 'signing', 'self-signed.p12');
}

/**
 * Reads the self-signed P12 under DATA_DIR, generating it the first time. Several processes may
 * race on the first start: each writes its own temporary file and hard-links it into place, which
 * only one can do; everybody then reads the winner's file.
 */
function loadOrCreateSelfSigned(dataDir: string, now: Date, logger: Logger): Buffer {
  const file = selfSignedPath(dataDir);
  try {
    return readFileSync(file);
  } catch {
    // not there yet
  }
  const p12 = generateSelfSignedP12({ commonName: 'pinkas self-signed (development and sandbox)', password: SELF_SIGNED_PASSWORD, now });
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(tmp, p12, { mode: 0o600 });
    try {
      linkSync(tmp, file);
    } catch {
      // another process won the race
    } finally {
      unlinkSync(tmp);
    }
    logger.info({ file }, 'generated the self-signed PDF signing certificate');
    return readFileSync(file);
  } catch (err) {
    // DATA_DIR not writable (tests point it nowhere): keep this process's certificate in memory.
    logger.warn({ file, error: (err as Error).message }, 'could not store the self-signed signing certificate; using an in-memory one');
    return p12;
  }
}

/**
 * The signing certificate of a mode, as the bytes the render threads parse. The sandbox always signs with the
 * self-signed development certificate, even where a production certificate is configured: a test document must
 * never carry the business's real signature. Live signs with the configured P12; without one, development and
 * tests use the self-signed certificate and live in production refuses (the job retries until the certificate
 * is configured).
 */
export function signingSourceFor(config: Config, mode: Mode, logger: Logger, now: Date): SigningSource {
  const p12 = config.prints.signingP12;
  if (p12 && mode === 'live') {
    const key = `p12:${p12.path}`;
    let source = sources.get(key);
    if (!source) sources.set(key, (source = { p12: readFileSync(p12.path), password: p12.password, development: false }));
    return source;
  }
  if (config.env === 'production' && mode === 'live') {
    throw new SigningUnconfigured('PDF_SIGNING_P12_PATH is not set: live documents are not signed with a self-signed certificate in production');
  }
  const key = `self:${config.dataDir}`;
  let source = sources.get(key);
  if (!source) {
    source = { p12: loadOrCreateSelfSigned(config.dataDir, now, logger), password: SELF_SIGNED_PASSWORD, development: true };
    sources.set(key, source);
  }
  return source;
}
