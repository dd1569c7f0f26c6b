import { AppError, validation } from '../platform/errors.ts';

/** The receipt formats accepted by upload and scan. */
export const RECEIPT_MIMES = ['image/jpeg', 'image/png', 'image/webp', 'application/pdf'] as const;
export type ReceiptMime = (typeof RECEIPT_MIMES)[number];

const ALIASES: Record<string, ReceiptMime> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg' };

export const EXTENSION: Record<ReceiptMime, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
};

/** The declared mime normalized (lower case, no parameters, aliases folded); null when none was declared. */
export function normalizeMime(declared: string | null | undefined): string | null {
  if (!declared) return null;
  const m = declared.split(';')[0].trim().toLowerCase();
  if (m === '' || m === 'application/octet-stream') return null;
  return ALIASES[m] ?? m;
}

/** The real type of the bytes, from their magic numbers; null when none of the accepted formats. */
export function sniffMime(b: Uint8Array): ReceiptMime | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((v, i) => b[i] === v)) return 'image/png';
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'image/webp';
  // A PDF header may follow a little junk (the spec allows it within the first 1024 bytes).
  const head = ascii(b, 0, Math.min(b.length, 1024));
  if (head.includes('%PDF-')) return 'application/pdf';
  return null;
}

function ascii(b: Uint8Array, from: number, to: number): string {
  return Buffer.from(b.buffer, b.byteOffset + from, Math.max(0, to - from)).toString('latin1');
}

/**
 * What the checks read of a receipt: its size, its first 64 KiB and its last 1 KiB. A receipt streamed to a
 * spool is checked from these (platform/file-store/spool.ts keeps them), without reading it again.
 */
export interface ReceiptSample {
  size: number;
  head: Uint8Array;
  tail: Uint8Array;
}

const sampleOf = (b: Uint8Array | ReceiptSample): ReceiptSample =>
  b instanceof Uint8Array ? { size: b.length, head: b.subarray(0, 64 * 1024), tail: b.subarray(Math.max(0, b.length - 1024)) } : b;

/**
 * A PDF must also end like one: `%%EOF` in its last 1 KB, and hold at least one object (in its first 64 KB).
 * (Structure beyond that is not parsed: the file is stored and shown, never rendered here.)
 */
export function looksLikeCompletePdf(content: Uint8Array | ReceiptSample): boolean {
  const { head, tail } = sampleOf(content);
  if (!ascii(tail, 0, tail.length).includes('%%EOF')) return false;
  return /\d+\s+\d+\s+obj\b/.test(ascii(head, 0, head.length));
}

/** A `data:<mime>;base64,<payload>` URI → bytes and declared mime. */
export function parseDataUri(uri: string, field: string): { bytes: Buffer; declaredMime: string | null } {
  const m = /^data:([^;,]*)((?:;[^;,]*)*?);base64,/i.exec(uri);
  if (!m) throw validation(field, 'must be a base64 data URI (data:<mime>;base64,...)');
  const payload = uri.slice(m[0].length).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload) || payload.length % 4 === 1) throw validation(field, 'the base64 payload is malformed');
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length === 0) throw validation(field, 'the file is empty');
  return { bytes, declaredMime: normalizeMime(m[1]) };
}

export const tooLarge = (maxBytes: number) => new AppError('too_large', `file: the receipt is larger than ${maxBytes} bytes (UPLOAD_MAX_BYTES)`);

/**
 * The byte-level checks of a receipt: not empty, within the size limit, one of the accepted
 * formats by its magic numbers, and agreeing with the declared type when one was declared.
 * Images are decoded separately (decodeCheck in receipt-image.ts).
 */
export function checkReceiptBytes(content: Uint8Array | ReceiptSample, declaredMime: string | null, maxBytes: number, field = 'file'): ReceiptMime {
  const sample = sampleOf(content);
  if (sample.size === 0) throw validation(field, 'the file is empty');
  if (sample.size > maxBytes) throw tooLarge(maxBytes);
  const real = sniffMime(sample.head);
  if (declaredMime !== null && !(RECEIPT_MIMES as readonly string[]).includes(declaredMime)) {
    throw validation(field, `type ${declaredMime} is not accepted (JPEG, PNG, WebP or PDF)`);
  }
  if (real === null) throw validation(field, 'the content is not a JPEG, PNG, WebP or PDF file');
  if (declaredMime !== null && declaredMime !== real) {
    throw validation(field, `declared as ${declaredMime} but the content is ${real}`);
  }
  if (real === 'application/pdf' && !looksLikeCompletePdf(sample)) throw validation(field, 'the PDF is truncated or malformed');
  return real;
}
