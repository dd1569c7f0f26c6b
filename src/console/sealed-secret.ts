import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * A new key's secret, sealed for a repeat of its mint form: AES-256-GCM under a key derived from
 * the session's cookie token (the database keeps only the token's SHA-256) and the form's
 * idempotency token. The database row alone opens nothing; only the same browser session can.
 */
function sealingKey(sessionToken: string, context: string): Buffer {
  return createHmac('sha256', sessionToken).update(`console-mint-reveal:${context}`).digest();
}

/** `context` binds the sealing key (account and form token); `keyId` is authenticated with it. */
export function sealSecret(secret: string, sessionToken: string, context: string, keyId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(sessionToken, context), iv);
  cipher.setAAD(Buffer.from(keyId));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The secret, or null when this session (or another token, key, or a tampered row) cannot open it. */
export function openSecret(sealed: string, sessionToken: string, context: string, keyId: string): string | null {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length <= 28) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(sessionToken, context), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(keyId));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
