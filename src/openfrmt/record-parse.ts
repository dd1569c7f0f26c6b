// One record of INI.TXT / BKMVDATA.TXT, read independently of the writer: the bytes decoded (iconv-lite), cut
// into fields by layouts.ts, each field checked against its picture; and the CRLF line splitter that feeds them.
import iconv from 'iconv-lite';
import { LAYOUTS, type FieldDef } from './layouts.ts';

export type Fields = Record<number, string>;

/** Dates seen (a file holds few distinct ones): validDate answers from here after the first time. */
const knownDates = new Map<string, boolean>();

function validDate(s: string): boolean {
  let ok = knownDates.get(s);
  if (ok === undefined) {
    ok = checkDate(s);
    if (knownDates.size > 100_000) knownDates.clear();
    knownDates.set(s, ok);
  }
  return ok;
}

function checkDate(s: string): boolean {
  if (!/^\d{8}$/.test(s)) return false;
  const y = Number(s.slice(0, 4));
  const m = Number(s.slice(4, 6));
  const d = Number(s.slice(6, 8));
  if (y < 1900 || m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** Checks one field against its picture; answers a problem or null. */
function fieldProblem(def: FieldDef, v: string): string | null {
  const kind = def[3];
  const req = def[4];
  switch (kind) {
    case 'R':
      return onlySpacesOrBang(v) ? null : 'reserved area must hold spaces or "!"';
    case 'X':
      return req === 'M' && v.trim() === '' ? 'mandatory field is empty' : null;
    case 'N':
    case 'U':
      return v.length > 0 && digitsFrom(v, 0) ? null : 'numeric field holds a non-digit';
    case 'S':
      if (req !== 'M' && v.trim() === '') return null;
      return v.length > 1 && (v[0] === '+' || v[0] === '-') && digitsFrom(v, 1) ? null : 'signed amount must be a sign followed by digits';
    case 'D':
      if (v === '00000000' && req !== 'M') return null;
      return validDate(v) ? null : 'not a valid YYYYMMDD date';
    case 'T': {
      if (v === '0000' && req !== 'M') return null;
      const m = /^(\d\d)(\d\d)$/.exec(v);
      return m && Number(m[1]) < 24 && Number(m[2]) < 60 ? null : 'not a valid HHMM time';
    }
  }
}

/** Every character from `start` on is an ASCII digit (what /\d/ matches). */
function digitsFrom(v: string, start: number): boolean {
  for (let i = start; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** What /^[ !]*$/ accepts. */
function onlySpacesOrBang(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c !== 0x20 && c !== 0x21) return false;
  }
  return true;
}

/** Signed amount → integer of the smallest unit (`+00000000100000` → 100000). */
export function signedValue(v: string): number {
  if (v.trim() === '') return 0;
  const n = Number(v.slice(1));
  return v[0] === '-' ? -n : n;
}

/** ISO-8859-8 as iconv-lite decodes it, byte by byte (a single-byte code: one UTF-16 unit per byte), read once. */
const ISO_8859_8 = ((): Uint16Array => {
  const all = Buffer.alloc(256);
  for (let i = 0; i < 256; i++) all[i] = i;
  const text = iconv.decode(all, 'iso-8859-8');
  if (text.length !== 256) throw new Error('iso-8859-8 must decode one character per byte');
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) table[i] = text.charCodeAt(i);
  return table;
})();

/** UTF-16 code units of a record being decoded (grown when a record is longer). */
let units = new Uint16Array(1024);

/**
 * Decodes one record's bytes (iconv-lite's table, applied here without a decoder per record); bytes outside
 * printable ASCII and א..ת are reported.
 */
export function decodeRecord(bytes: Buffer): { text: string; badByte: number | null } {
  let badByte: number | null = null;
  let high = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b >= 0x80) high = true;
    if (badByte === null && !((b >= 0x20 && b <= 0x7e) || (b >= 0xe0 && b <= 0xfa))) badByte = i + 1;
  }
  // ASCII bytes are themselves in ISO-8859-8.
  if (!high) return { text: bytes.toString('latin1'), badByte };
  if (units.length < bytes.length) units = new Uint16Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) units[i] = ISO_8859_8[bytes[i]];
  return { text: Buffer.from(units.buffer, 0, bytes.length * 2).toString('utf16le'), badByte };
}

/** Cuts a decoded record into its fields and checks them; `layout` names the table (A000, SUMMARY, C100…). */
export function parseRecord(layoutName: string, text: string): { fields: Fields; problems: { field?: number; problem: string }[] } {
  const layout = LAYOUTS[layoutName];
  const problems: { field?: number; problem: string }[] = [];
  const fields: Fields = {};
  if (!layout) return { fields, problems: [{ problem: `unknown record code "${text.slice(0, 4)}"` }] };
  if (text.length !== layout.length) {
    problems.push({ problem: `record length ${text.length}, layout ${layoutName} has ${layout.length}` });
    return { fields, problems };
  }
  for (const def of layout.fields) {
    const v = text.slice(def[1] - 1, def[2]);
    fields[def[0]] = v;
    const p = fieldProblem(def, v);
    if (p) problems.push({ field: def[0], problem: p });
  }
  return { fields, problems };
}

/** Splits a byte stream at CRLF; a bare CR or LF, or bytes after the last CRLF, are reported. */
export class CrlfSplitter {
  private rest: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): Buffer[] {
    const buf = this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk;
    const out: Buffer[] = [];
    let start = 0;
    for (let i = buf.indexOf(0x0a, start); i !== -1; i = buf.indexOf(0x0a, start)) {
      out.push(buf.subarray(start, i + 1));
      start = i + 1;
    }
    this.rest = Buffer.from(buf.subarray(start));
    return out;
  }
  /** Bytes left after the last LF (should be none). */
  end(): Buffer {
    return this.rest;
  }
}
