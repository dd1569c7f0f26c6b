import { randomBytes, randomFillSync } from 'node:crypto';

// Crockford base32, lowercase: ids sort by creation time as plain strings.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix =
  | 'acct'
  | 'key'
  | 'biz'
  | 'pty'
  | 'doc'
  | 'exp'
  | 'spay'
  | 'file'
  | 'we'
  | 'del'
  | 'exr'
  | 'bak'
  | 'evt'
  | 'aud'
  | 'job'
  | 'prn'
  | 'ses'
  | 'otp'
  /** A journal entry (the ledger). */
  | 'je'
  /** An HTTP request (Fastify's req.id: error bodies, X-Request-Id, log lines). */
  | 'req'
  /** A row of the request log (its own id: a caller's X-Request-Id need not be unique). */
  | 'rql';

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

// Random bytes drawn a page at a time: a call to the system's generator per id cost more than the id's use.
const pool = Buffer.alloc(4096);
let used = pool.length;

function encodeRandom(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  let out = '';
  for (let i = used; i < used + bytes; i++) out += ALPHABET[pool[i] & 31];
  used += bytes;
  return out;
}

/** `<prefix>_<10 chars of ms time><16 random chars (80 bits)>`. */
export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  return `${prefix}_${encodeTime(nowMs)}${encodeRandom(16)}`;
}

/** The smallest id of `prefix` made at `ms` or later: ids before it were made earlier (a range bound on the primary key). */
export function firstIdAt(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${encodeTime(ms)}`;
}

/** A URL-safe secret of `bytes` random bytes (base64url). */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
