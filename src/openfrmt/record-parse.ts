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

/**
 * Checks one field of `t` against its picture, on the record's text where the field lies (no copy of the field
 * unless a date or time must be read); answers a problem or null.
 */
function fieldProblem(def: FieldDef, t: string): string | null {
  const from = def[1] - 1;
  const to = def[2];
  const kind = def[3];
  const req = def[4];
  switch (kind) {
    case 'R':
      return onlySpacesOrBang(t, from, to) ? null : 'reserved area must hold spaces or "!"';
    case 'X':
      return req === 'M' && blank(t, from, to) ? 'mandatory field is empty' : null;
    case 'N':
    case 'U':
      return to > from && digits(t, from, to) ? null : 'numeric field holds a non-digit';
    case 'S': {
      if (req !== 'M' && blank(t, from, to)) return null;
      const sign = t.charCodeAt(from);
      return to - from > 1 && (sign === 0x2b || sign === 0x2d) && digits(t, from + 1, to) ? null : 'signed amount must be a sign followed by digits';
    }
    case 'D': {
      const v = t.slice(from, to);
      if (v === '00000000' && req !== 'M') return null;
      return validDate(v) ? null : 'not a valid YYYYMMDD date';
    }
    case 'T': {
      const v = t.slice(from, to);
      if (v === '0000' && req !== 'M') return null;
      const m = /^(\d\d)(\d\d)$/.exec(v);
      return m && Number(m[1]) < 24 && Number(m[2]) < 60 ? null : 'not a valid HHMM time';
    }
  }
}

/** Every character of t[from, to) is an ASCII digit (what /\d/ matches). */
function digits(t: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = t.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** What /^[ !]*$/ accepts, over t[from, to). */
function onlySpacesOrBang(t: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = t.charCodeAt(i);
    if (c !== 0x20 && c !== 0x21) return false;
  }
  return true;
}

/** `t.slice(from, to).trim() === ''`: spaces are read in place; any other character that could be white space is left to trim(). */
function blank(t: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = t.charCodeAt(i);
    if (c === 0x20) continue;
    // Printable ASCII and the letters (below U+1680, the first white space past U+00A0) are never white space.
    if ((c > 0x20 && c < 0x7f) || (c > 0xa0 && c < 0x1680)) return false;
    return t.slice(i, to).trim() === '';
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

type Problem = { field?: number; problem: string };

/** The record's length, then each field's picture; answers the problems found (null: none). */
function problemsOf(layoutName: string, layout: Layout, text: string): Problem[] | null {
  if (text.length !== layout.length) return [{ problem: `record length ${text.length}, layout ${layoutName} has ${layout.length}` }];
  let problems: Problem[] | null = null;
  for (const def of layout.fields) {
    const p = fieldProblem(def, text);
    if (p) (problems ??= []).push({ field: def[0], problem: p });
  }
  return problems;
}

/** Cuts a decoded record into its fields and checks them; `layout` names the table (A000, SUMMARY, C100…). */
export function parseRecord(layoutName: string, text: string): { fields: Fields; problems: Problem[] } {
  const layout = LAYOUTS[layoutName];
  const fields: Fields = {};
  if (!layout) return { fields, problems: [{ problem: `unknown record code "${text.slice(0, 4)}"` }] };
  const problems = problemsOf(layoutName, layout, text) ?? [];
  if (text.length !== layout.length) return { fields, problems };
  for (const def of layout.fields) fields[def[0]] = text.slice(def[1] - 1, def[2]);
  return { fields, problems };
}

type Layout = (typeof LAYOUTS)[string];

/** A layout's fields by id: [from, to) of field `id` at `first`-relative index (-1: the layout has no such field). */
interface FieldIndex {
  name: string;
  first: number;
  from: Int32Array;
  to: Int32Array;
}

const INDEXES = new Map<string, FieldIndex>(
  Object.entries(LAYOUTS).map(([name, { fields }]) => {
    const first = Math.min(...fields.map((d) => d[0]));
    const size = Math.max(...fields.map((d) => d[0])) - first + 1;
    const index: FieldIndex = { name, first, from: new Int32Array(size).fill(-1), to: new Int32Array(size) };
    for (const [id, from, to] of fields) {
      index.from[id - first] = from - 1;
      index.to[id - first] = to;
    }
    return [name, index];
  }),
);

/**
 * A checked record's fields, each cut from the record's text when it is read: a record of BKMVDATA.TXT has
 * 20–50 fields, of which the reader's checks and digests read a handful (a million-document file has ~7 million
 * records).
 */
export class RecordFields {
  constructor(
    private readonly text: string,
    private readonly index: FieldIndex,
  ) {}

  get(id: number): string {
    const i = id - this.index.first;
    const from = i >= 0 && i < this.index.from.length ? this.index.from[i] : -1;
    if (from < 0) throw new Error(`layout ${this.index.name} has no field ${id}`);
    return this.text.slice(from, this.index.to[i]);
  }
}

/** As parseRecord, but the fields are read from the text on demand (the reader of BKMVDATA.TXT). */
export function readRecord(layoutName: string, text: string): { fields: RecordFields; problems: Problem[] | null } {
  const layout = LAYOUTS[layoutName];
  const index = INDEXES.get(layoutName);
  if (!layout || !index) throw new Error(`no layout ${layoutName}`);
  return { fields: new RecordFields(text, index), problems: problemsOf(layoutName, layout, text) };
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
