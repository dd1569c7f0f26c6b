/**
 * Verifies a webhook delivery, exactly as the service signs it (README "Verifying deliveries"):
 * `X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the
 * endpoint secret>`. Pass the raw body bytes as received; a re-serialized object does not match.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type VerifyResult =
  { ok: true; timestamp: number } | { ok: false; reason: 'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'signature_mismatch' };

function hmac(secret: string, t: string, rawBody: string | Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
}

/**
 * `{ok: true, timestamp}` or `{ok: false, reason}`; constant-time, refusing a timestamp more than
 * `toleranceSec` (default 300) from `now`. Any one of several `v1=` values may match.
 */
export function verifyWebhook(
  secret: string,
  rawBody: string | Uint8Array,
  signatureHeader: string | string[] | undefined | null,
  opts: { toleranceSec?: number; now?: Date | number } = {},
): VerifyResult {
  const header = Array.isArray(signatureHeader) ? signatureHeader[0] : signatureHeader;
  if (!header) return { ok: false, reason: 'missing_header' };
  let t: string | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't') t = v;
    else if (k === 'v1') v1.push(v);
  }
  if (t === null || !/^\d{1,12}$/.test(t) || v1.length === 0) return { ok: false, reason: 'malformed_header' };
  const timestamp = Number(t);
  const nowMs = opts.now === undefined ? Date.now() : typeof opts.now === 'number' ? opts.now : opts.now.getTime();
  if (Math.abs(nowMs / 1000 - timestamp) > (opts.toleranceSec ?? 300)) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const expected = hmac(secret, t, rawBody);
  let match = false;
  for (const candidate of v1) {
    if (!/^[0-9a-f]{64}$/i.test(candidate)) continue;
    if (timingSafeEqual(Buffer.from(candidate, 'hex'), expected)) match = true;
  }
  return match ? { ok: true, timestamp } : { ok: false, reason: 'signature_mismatch' };
}
