/**
 * The seal of a backup: `manifest.seal.json` = {alg: "HMAC-SHA256", keyId, mac}, where mac is the
 * HMAC-SHA256 of the exact bytes of manifest.json under the seal key (the key's UTF-8 bytes). The
 * manifest lists the sha256 of every other entry and restore refuses anything unlisted, so the seal
 * covers the whole archive. keyId (16 hex of a sha256 of the key) only names the key in messages.
 *
 * The key: BACKUP_SEAL_KEY; without it, production refuses to write backups, and development and
 * tests generate one once into DATA_DIR/backups/seal.key (0600). Restoring on another machine: pass
 * the key of the install that wrote the backup (`--seal-key`, `--seal-key-file`, or BACKUP_SEAL_KEY).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { backupSealKey, ConfigError, type Config } from '../platform/config.ts';
import { unconfigured, validation } from '../platform/errors.ts';

export const SEAL_ENTRY = 'manifest.seal.json';
export const SEAL_ALG = 'HMAC-SHA256';

export interface Seal {
  alg: typeof SEAL_ALG;
  keyId: string;
  mac: string;
}

export const sealKeyId = (key: string) => createHash('sha256').update(`pinkas-backup-seal-key-id:${key}`).digest('hex').slice(0, 16);

export function seal(manifestBytes: Uint8Array, key: string): Seal {
  return { alg: SEAL_ALG, keyId: sealKeyId(key), mac: createHmac('sha256', Buffer.from(key, 'utf8')).update(manifestBytes).digest('hex') };
}

export function sealKeyPath(dataDir: string): string {
  return path.join(dataDir, 'backups', 'seal.key');
}

function readKeyFile(file: string): string | null {
  try {
    const k = readFileSync(file, 'utf8').trim();
    return k === '' ? null : k;
  } catch {
    return null;
  }
}

function envKey(env: Record<string, string | undefined>): string | null {
  try {
    return backupSealKey(env);
  } catch (err) {
    if (err instanceof ConfigError) throw unconfigured(err.message);
    throw err;
  }
}

/**
 * The key that seals a new backup. BACKUP_SEAL_KEY when set; production without it: 503
 * `unconfigured`; otherwise the key under DATA_DIR, generated the first time (several processes
 * may race: each links its own file into place, only one wins, everybody reads the winner's).
 */
export function sealKeyForWriting(config: Config, env: Record<string, string | undefined> = process.env): string {
  const configured = envKey(env);
  if (configured) return configured;
  if (config.env === 'production') {
    throw unconfigured(
      'BACKUP_SEAL_KEY is not set: backups are sealed with it (at least 32 characters, e.g. openssl rand -hex 32); keep it, a restore needs it',
    );
  }
  const file = sealKeyPath(config.dataDir);
  const existing = readKeyFile(file);
  if (existing) return existing;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(tmp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    try {
      linkSync(tmp, file);
    } catch {
      // another process won the race
    } finally {
      unlinkSync(tmp);
    }
  } catch (err) {
    throw unconfigured(`BACKUP_SEAL_KEY is not set and no seal key could be stored in ${file} (${(err as Error).message})`);
  }
  const k = readKeyFile(file);
  if (!k) throw unconfigured(`BACKUP_SEAL_KEY is not set and ${file} could not be read back`);
  return k;
}

/** The key a restore checks with: the one given (`--seal-key`), else BACKUP_SEAL_KEY, else DATA_DIR's key file if there is one. */
export function sealKeyForReading(
  config: Config,
  given: string | undefined,
  env: Record<string, string | undefined> = process.env,
): { key: string; source: string } | null {
  if (given !== undefined) {
    const k = given.trim();
    if (k.length < 32) throw validation('seal-key', 'must be at least 32 characters');
    return { key: k, source: '--seal-key' };
  }
  const configured = envKey(env);
  if (configured) return { key: configured, source: 'BACKUP_SEAL_KEY' };
  const file = sealKeyPath(config.dataDir);
  const k = readKeyFile(file);
  return k ? { key: k, source: file } : null;
}

/** Checks the seal of manifest.json; throws a 400 naming what is wrong. */
export function checkSeal(manifestBytes: Uint8Array, sealBytes: Uint8Array | undefined, key: { key: string; source: string } | null): Seal {
  if (!sealBytes) throw validation('file', `has no ${SEAL_ENTRY}: a sealed backup's seal was removed, so nothing proves it is whole`);
  let s: Seal;
  try {
    s = JSON.parse(Buffer.from(sealBytes).toString('utf8')) as Seal;
  } catch {
    throw validation('file', `${SEAL_ENTRY} is not JSON`);
  }
  if (s?.alg !== SEAL_ALG || typeof s.mac !== 'string' || !/^[0-9a-f]{64}$/.test(s.mac)) throw validation('file', `${SEAL_ENTRY} is not an ${SEAL_ALG} seal`);
  if (!key) {
    throw unconfigured(
      `no seal key to check the backup with (it was sealed with key id ${s.keyId}): pass the key of the install that made it with --seal-key (or --seal-key-file, or BACKUP_SEAL_KEY); outside production that install keeps it in DATA_DIR/backups/seal.key`,
    );
  }
  const expected = seal(manifestBytes, key.key);
  if (s.keyId !== expected.keyId) {
    throw validation(
      'file',
      `is sealed with another key (key id ${s.keyId}; the key from ${key.source} has id ${expected.keyId}): pass the key of the install that made it with --seal-key or BACKUP_SEAL_KEY`,
    );
  }
  if (!timingSafeEqual(Buffer.from(s.mac, 'hex'), Buffer.from(expected.mac, 'hex'))) {
    throw validation('file', 'manifest.json does not match its seal: the backup was altered after it was written');
  }
  return s;
}
