/**
 * Records written straight into bytes: the field pictures of fields.ts (same rules, same refusals, same
 * messages) applied while writing ISO-8859-8 into a Buffer, with no intermediate strings. The hot record
 * types (C100, D110, D120, B100: millions per large export) are written through this; fields.ts keeps the
 * string forms for everything else, and test/unit/openfrmt-out.test.ts holds both to the same output.
 */
import { foldToRepertoire } from './charset.ts';
import { FieldError, quantityField } from './fields.ts';

const SPACE = 0x20;
const ZERO = 0x30;

/** A character inside the repertoire (printable ASCII or א..ת) → its byte; anything else → -1. */
function byteOf(code: number): number {
  if (code >= 0x20 && code <= 0x7e) return code;
  if (code >= 0x05d0 && code <= 0x05ea) return code - 0x05d0 + 0xe0;
  return -1;
}

/** Decimal digits of a non-negative safe integer. */
function digitCount(v: number): number {
  let n = 1;
  while (v >= 10) {
    v = Math.floor(v / 10);
    n++;
  }
  return n;
}

function isDigitString(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** A growing byte buffer records are written into, one field after the other. */
export class RecordOut {
  private buf: Buffer;
  pos = 0;
  private start = 0;

  constructor(capacity = 4096) {
    this.buf = Buffer.allocUnsafe(Math.max(capacity, 512));
  }

  /** Starts a record of at most `max` bytes (with its CR LF): the buffer grows if needed. */
  begin(max: number): void {
    if (this.pos + max > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + max));
      this.buf.copy(next, 0, 0, this.pos);
      this.buf = next;
    }
    this.start = this.pos;
  }

  /** Ends the record with CR LF after checking it has the length of its layout. */
  end(code: string, expectedLength: number): void {
    const built = this.pos - this.start;
    if (built !== expectedLength) throw new FieldError(`${code}: built ${built} characters, layout has ${expectedLength}`);
    this.buf[this.pos++] = 0x0d;
    this.buf[this.pos++] = 0x0a;
  }

  /** The bytes written so far (a view: the RecordOut must not be written to afterwards). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** ASCII text written as is (record codes, constants). */
  lit(s: string): void {
    for (let i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i);
  }

  /** `X(n)` as fields.ts alpha: folded to ISO-8859-8, left-aligned, space-filled, cut to n. */
  alpha(value: string | null | undefined, n: number): void {
    const b = this.buf;
    let p = this.pos;
    const end = p + n;
    if (value) {
      let text = value;
      for (let i = 0; i < text.length; i++) {
        if (byteOf(text.charCodeAt(i)) < 0) {
          text = foldToRepertoire(value);
          break;
        }
      }
      const m = text.length < n ? text.length : n;
      for (let i = 0; i < m; i++) b[p++] = byteOf(text.charCodeAt(i));
    }
    while (p < end) b[p++] = SPACE;
    this.pos = end;
  }

  /** `n` times the byte `b` (a loop: fields are short, a native fill costs more to call than to run). */
  private repeat(b: number, n: number): void {
    const buf = this.buf;
    const end = this.pos + n;
    for (let p = this.pos; p < end; p++) buf[p] = b;
    this.pos = end;
  }

  /** Blanks: `n` spaces (reserved and empty alpha fields). */
  spaces(n: number): void {
    this.repeat(SPACE, n);
  }

  /** Right-aligned digits of a non-negative safe integer, zero-filled to `n` (the caller checked it fits). */
  private digits(v: number, n: number): void {
    const b = this.buf;
    let p = this.pos + n - 1;
    const first = this.pos;
    while (p >= first) {
      const q = Math.floor(v / 10);
      b[p--] = ZERO + (v - q * 10);
      v = q;
    }
    this.pos += n;
  }

  /** `9(n)` as fields.ts num. */
  num(value: string | number | null | undefined, n: number, field = 'numeric'): void {
    if (value === null || value === undefined || value === '') {
      this.repeat(ZERO, n);
      return;
    }
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
      if (digitCount(value) > n) throw new FieldError(`${field}: "${String(value)}" does not fit in ${n} digits`);
      this.digits(value, n);
      return;
    }
    const digits = typeof value === 'number' ? String(value) : value;
    if (!isDigitString(digits)) throw new FieldError(`${field}: "${digits}" is not a non-negative integer`);
    if (digits.length > n) throw new FieldError(`${field}: "${digits}" does not fit in ${n} digits`);
    const pad = n - digits.length;
    this.repeat(ZERO, pad);
    this.lit(digits);
  }

  /** `X9(i)v(d)` as fields.ts signed. */
  signed(scaled: number, intDigits: number, decDigits: number, field = 'amount'): void {
    if (!Number.isSafeInteger(scaled)) throw new FieldError(`${field}: ${scaled} is not an integer of the smallest unit`);
    const width = intDigits + decDigits;
    const abs = Math.abs(scaled);
    if (digitCount(abs) > width) throw new FieldError(`${field}: ${scaled} does not fit in X9(${intDigits})v${'9'.repeat(decDigits)}`);
    this.buf[this.pos++] = scaled < 0 ? 0x2d : 0x2b;
    this.digits(abs, width);
  }

  amount15(agorot: number, field?: string): void {
    this.signed(agorot, 12, 2, field);
  }

  amount12(agorot: number, field?: string): void {
    this.signed(agorot, 9, 2, field);
  }

  quantity17(qty: number, field = 'quantity'): void {
    this.signed(quantityField(qty), 12, 4, field);
  }

  unsignedScaled(scaled: number, intDigits: number, decDigits: number, field = 'amount'): void {
    if (!Number.isSafeInteger(scaled) || scaled < 0) throw new FieldError(`${field}: ${scaled} is not a non-negative scaled integer`);
    this.num(scaled, intDigits + decDigits, field);
  }

  /** `YYYYMMDD` from `YYYY-MM-DD`; empty → zeros. */
  date8(isoDate: string | null | undefined, field = 'date'): void {
    if (!isoDate) {
      this.repeat(ZERO, 8);
      return;
    }
    if (!isIsoDate(isoDate)) throw new FieldError(`${field}: "${isoDate}" is not YYYY-MM-DD`);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < 10; i++) if (i !== 4 && i !== 7) b[p++] = isoDate.charCodeAt(i);
    this.pos = p;
  }

  /** `HHMM` (24h) from `HH:MM` or `HHMM`; empty → zeros. */
  time4(hhmm: string | null | undefined, field = 'time'): void {
    if (!hhmm) {
      this.lit('0000');
      return;
    }
    const m = /^([01]\d|2[0-3]):?([0-5]\d)$/.exec(hhmm);
    if (!m) throw new FieldError(`${field}: "${hhmm}" is not HH:MM`);
    this.lit(m[1]);
    this.lit(m[2]);
  }
}

/** What /^\d{4}-\d{2}-\d{2}$/ accepts. */
function isIsoDate(s: string): boolean {
  if (s.length !== 10) return false;
  for (let i = 0; i < 10; i++) {
    const c = s.charCodeAt(i);
    if (i === 4 || i === 7 ? c !== 0x2d : c < 0x30 || c > 0x39) return false;
  }
  return true;
}
