import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures, for the service and for integrators. A delivery carries
 * `X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint secret>`.
 *
 *   import { verifyWebhook } from 'pinkas/webhooks';
 *   const r = verifyWebhook(secret, rawBodyBuffer, req.headers['x-service-signature']);
 *   if (!r.ok) return reply(400, r.reason);
 */

/** `t=<unix>,v1=<hex>` for a raw body at a time (seconds). */
export function signWebhook(secret: string, rawBody: string | Buffer, timestampSec: number): string {
  return `t=${timestampSec},v1=${hmacHex(secret, timestampSec, rawBody)}`;
}

function hmacHex(secret: string, t: number | string, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
}

export type VerifyResult =
  { ok: true; timestamp: number } | { ok: false; reason: 'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'signature_mismatch' };

/**
 * Checks a delivery's signature against the raw body bytes (a re-serialized body does not match),
 * in constant time, refusing a timestamp more than `toleranceSec` away from `now`.
 * Several `v1=` values (e.g. during secret rotation on the receiver side) are accepted if any matches.
 */
export function verifyWebhook(
  secret: string,
  rawBody: string | Buffer,
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
  const tolerance = opts.toleranceSec ?? 300;
  if (Math.abs(nowMs / 1000 - timestamp) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const expected = Buffer.from(hmacHex(secret, t, rawBody), 'hex');
  let match = false;
  for (const candidate of v1) {
    if (!/^[0-9a-f]{64}$/i.test(candidate)) continue;
    const given = Buffer.from(candidate, 'hex');
    if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
  }
  return match ? { ok: true, timestamp } : { ok: false, reason: 'signature_mismatch' };
}
