/**
 * The PCN874 file (pure: no I/O): writing and reading its three fixed-width records. Layout in
 * docs/vat.md (what is confirmed and where). Every record is ASCII and ends with CR LF; numbers are
 * right-aligned and zero-filled; signed amounts carry a leading `+` or `-`; amounts are whole shekels.
 */

export const CRLF = '\r\n';

/** `alnum` is the circular's A(n) of the reference group: capital letters or digits (pinkas writes zeros). */
type FieldKind = 'const' | 'digits' | 'signed' | 'letter' | 'alnum';
interface Field {
  name: string;
  kind: FieldKind;
  /** Characters, the sign included for a signed field. */
  width: number;
}

const f = (name: string, kind: FieldKind, width: number): Field => ({ name, kind, width });

export const HEADER_LAYOUT: Field[] = [
  f('recordType', 'const', 1), // O
  f('vatId', 'digits', 9),
  f('period', 'digits', 6), // YYYYMM
  f('reportType', 'digits', 1), // 1
  f('generated', 'digits', 8), // YYYYMMDD
  f('taxableSales', 'signed', 12),
  f('taxableVat', 'signed', 10),
  f('otherRateSales', 'signed', 12),
  f('otherRateVat', 'signed', 10),
  f('salesCount', 'digits', 9),
  f('zeroOrExemptSales', 'signed', 12),
  f('otherInputsVat', 'signed', 10),
  f('equipmentInputsVat', 'signed', 10),
  f('inputsCount', 'digits', 9),
  f('vatPayable', 'signed', 12),
];

export const ENTRY_LAYOUT: Field[] = [
  f('type', 'letter', 1),
  f('counterpartyId', 'digits', 9),
  f('date', 'digits', 8), // YYYYMMDD
  f('refGroup', 'alnum', 4), // A(4): a series or branch, zeros allowed
  f('refNumber', 'digits', 9),
  f('vat', 'digits', 9),
  f('exVat', 'signed', 11),
  f('allocation', 'digits', 9),
];

export const CLOSING_LAYOUT: Field[] = [f('recordType', 'const', 1), f('vatId', 'digits', 9)];

const width = (layout: Field[]) => layout.reduce((a, x) => a + x.width, 0);
export const HEADER_LENGTH = width(HEADER_LAYOUT); // 131
export const ENTRY_LENGTH = width(ENTRY_LAYOUT); // 60
export const CLOSING_LENGTH = width(CLOSING_LAYOUT); // 10

/** Sales: regular (S), unidentified customer (L), self-invoice (M), export (Y), Palestinian Authority customer (I). */
export const SALE_TYPES = ['S', 'L', 'M', 'Y', 'I'] as const;
/** Inputs: regular (T), petty cash (K), import (R), Palestinian Authority supplier (P), other document by law (H), self-invoice (C). */
export const INPUT_TYPES = ['T', 'K', 'R', 'P', 'H', 'C'] as const;
export type EntryType = (typeof SALE_TYPES)[number] | (typeof INPUT_TYPES)[number];
export const isSale = (t: string): boolean => (SALE_TYPES as readonly string[]).includes(t);
export const isInput = (t: string): boolean => (INPUT_TYPES as readonly string[]).includes(t);

/** Whole shekels. */
export interface Pcn874Header {
  vatId: string;
  period: string;
  generated: string;
  taxableSales: number;
  taxableVat: number;
  salesCount: number;
  zeroOrExemptSales: number;
  otherInputsVat: number;
  equipmentInputsVat: number;
  inputsCount: number;
  vatPayable: number;
}

export interface Pcn874Entry {
  type: EntryType;
  counterpartyId: string;
  date: string;
  refGroup: string;
  refNumber: string;
  /** Whole shekels, ≥ 0 (the deductible share for an input). */
  vat: number;
  /** Whole shekels, negative for a credit or a cancellation. */
  exVat: number;
  allocation: string;
}

export interface Pcn874File {
  header: Pcn874Header;
  entries: Pcn874Entry[];
}

/** Agorot to whole shekels, half away from zero (integer arithmetic: no float drift). */
export function shekels(agorot: number): number {
  if (!Number.isSafeInteger(agorot)) throw new RangeError(`not an amount in agorot: ${agorot}`);
  const whole = Math.floor((Math.abs(agorot) + 50) / 100);
  return agorot < 0 && whole > 0 ? -whole : whole; // never -0
}

/** The digits of a reference (letters and signs dropped), its last `n`, zero-filled; zeros when none. */
export function lastDigits(value: string | number | null | undefined, n: number): string {
  const digits = String(value ?? '').replace(/\D/g, '');
  return digits.slice(-n).padStart(n, '0');
}

function put(field: Field, value: string | number, record: string): string {
  const v = String(value);
  if (field.kind === 'signed') {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new RangeError(`${record}.${field.name}: not a whole number (${v})`);
    const digits = String(Math.abs(value));
    if (digits.length > field.width - 1) throw new RangeError(`${record}.${field.name}: ${value} does not fit ${field.width - 1} digits`);
    return (value < 0 ? '-' : '+') + digits.padStart(field.width - 1, '0');
  }
  if (field.kind === 'digits') {
    const digits = typeof value === 'number' ? (Number.isSafeInteger(value) && value >= 0 ? String(value) : '') : v;
    if (!/^\d+$/.test(digits)) throw new RangeError(`${record}.${field.name}: "${v}" is not digits`);
    if (digits.length > field.width) throw new RangeError(`${record}.${field.name}: "${v}" is longer than ${field.width}`);
    return digits.padStart(field.width, '0');
  }
  if (field.kind === 'alnum') {
    if (!/^[0-9A-Z]+$/.test(v) || v.length !== field.width)
      throw new RangeError(`${record}.${field.name}: "${v}" is not ${field.width} capital letters or digits`);
    return v;
  }
  if (v.length !== field.width || !/^[A-Z]+$/.test(v)) throw new RangeError(`${record}.${field.name}: "${v}" is not ${field.width} capital letter(s)`);
  return v;
}

function record(layout: Field[], values: Record<string, string | number>, name: string): string {
  return layout.map((x) => put(x, values[x.name], name)).join('');
}

export function headerRecord(h: Pcn874Header): string {
  return record(HEADER_LAYOUT, { ...h, recordType: 'O', reportType: 1, otherRateSales: 0, otherRateVat: 0 }, 'header');
}

export function entryRecord(e: Pcn874Entry): string {
  if (!isSale(e.type) && !isInput(e.type)) throw new RangeError(`entry.type: "${e.type}" is not a PCN874 entry type`);
  if (e.vat < 0) throw new RangeError('entry.vat: the VAT of an entry is never negative (the sign is on the amount)');
  return record(ENTRY_LAYOUT, { ...e }, 'entry');
}

export function closingRecord(vatId: string): string {
  return record(CLOSING_LAYOUT, { recordType: 'X', vatId }, 'closing');
}

/** The whole file as bytes (ASCII). Throws RangeError on any value that does not fit its field. */
export function formatPcn874(file: Pcn874File): Buffer {
  const records = [headerRecord(file.header), ...file.entries.map(entryRecord), closingRecord(file.header.vatId)];
  return Buffer.from(records.map((r) => r + CRLF).join(''), 'ascii');
}

export interface ReadPcn874 {
  header: Pcn874Header | null;
  entries: Pcn874Entry[];
  closingVatId: string | null;
  /** Each problem names the line (1-based) and the field. Empty when the file reads clean. */
  problems: string[];
}

function take(layout: Field[], line: string, lineNo: number, problems: string[]): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  let at = 0;
  for (const x of layout) {
    const raw = line.slice(at, at + x.width);
    at += x.width;
    const where = `line ${lineNo} ${x.name} (positions ${at - x.width + 1}–${at})`;
    if (x.kind === 'signed') {
      if (!/^[+-]\d+$/.test(raw)) problems.push(`${where}: "${raw}" is not a sign and ${x.width - 1} digits`);
      out[x.name] = Number(raw);
    } else if (x.kind === 'digits') {
      if (!/^\d+$/.test(raw)) problems.push(`${where}: "${raw}" is not ${x.width} digits`);
      out[x.name] = raw;
    } else if (x.kind === 'alnum') {
      if (!/^[0-9A-Z]+$/.test(raw) || raw.length !== x.width) problems.push(`${where}: "${raw}" is not ${x.width} capital letters or digits`);
      out[x.name] = raw;
    } else {
      out[x.name] = raw;
    }
  }
  return out;
}

function readHeader(line: string, problems: string[]): Pcn874Header {
  if (line[0] !== 'O') problems.push(`line 1: the first record is the header "O", found "${line[0] ?? ''}"`);
  if (line.length !== HEADER_LENGTH) problems.push(`line 1: the header is ${HEADER_LENGTH} characters, found ${line.length}`);
  const v = take(HEADER_LAYOUT, line, 1, problems);
  if (v.reportType !== '1') problems.push(`line 1 reportType: "${v.reportType}" (expected 1)`);
  if (v.otherRateSales !== 0 || v.otherRateVat !== 0) problems.push('line 1: sales at another rate are not zero');
  return {
    vatId: String(v.vatId),
    period: String(v.period),
    generated: String(v.generated),
    taxableSales: Number(v.taxableSales),
    taxableVat: Number(v.taxableVat),
    salesCount: Number(v.salesCount),
    zeroOrExemptSales: Number(v.zeroOrExemptSales),
    otherInputsVat: Number(v.otherInputsVat),
    equipmentInputsVat: Number(v.equipmentInputsVat),
    inputsCount: Number(v.inputsCount),
    vatPayable: Number(v.vatPayable),
  };
}

/** The closing record's VAT number. */
function readClosing(line: string, lineNo: number, problems: string[]): string {
  if (line[0] !== 'X') problems.push(`line ${lineNo}: the last record is the closing "X", found "${line[0] ?? ''}"`);
  if (line.length !== CLOSING_LENGTH) problems.push(`line ${lineNo}: the closing record is ${CLOSING_LENGTH} characters, found ${line.length}`);
  return String(take(CLOSING_LAYOUT, line, lineNo, problems).vatId);
}

function readEntry(line: string, lineNo: number, problems: string[]): Pcn874Entry {
  if (line.length !== ENTRY_LENGTH) problems.push(`line ${lineNo}: an entry is ${ENTRY_LENGTH} characters, found ${line.length}`);
  const v = take(ENTRY_LAYOUT, line, lineNo, problems);
  const type = String(v.type);
  if (!isSale(type) && !isInput(type)) problems.push(`line ${lineNo} type: "${type}" is not a PCN874 entry type`);
  return {
    type: type as EntryType,
    counterpartyId: String(v.counterpartyId),
    date: String(v.date),
    refGroup: String(v.refGroup),
    refNumber: String(v.refNumber),
    vat: Number(v.vat),
    exVat: Number(v.exVat),
    allocation: String(v.allocation),
  };
}

/** The header's VAT number and counts against the closing record and the entries. */
function checkHeaderAgainstBody(result: ReadPcn874): void {
  const { header: h, problems } = result;
  if (!h) return;
  if (result.closingVatId !== null && result.closingVatId !== h.vatId)
    problems.push(`the closing record's VAT number ${result.closingVatId} is not the header's ${h.vatId}`);
  const sales = result.entries.filter((e) => isSale(e.type)).length;
  const inputs = result.entries.filter((e) => isInput(e.type)).length;
  if (sales !== h.salesCount) problems.push(`the header counts ${h.salesCount} sales, the file holds ${sales}`);
  if (inputs !== h.inputsCount) problems.push(`the header counts ${h.inputsCount} inputs, the file holds ${inputs}`);
}

/** Reads a PCN874 file from its layout alone: record lengths, line ends, characters, order, counts. */
export function readPcn874(bytes: Uint8Array): ReadPcn874 {
  const problems: string[] = [];
  const buf = Buffer.from(bytes);
  if (buf.some((b) => b > 0x7e || (b < 0x20 && b !== 0x0d && b !== 0x0a))) problems.push('the file holds bytes outside printable ASCII');
  const text = buf.toString('latin1');
  if (!text.endsWith(CRLF)) problems.push('the last record does not end with CR LF');
  const lines = text.split(CRLF);
  if (lines.at(-1) === '') lines.pop();
  const result: ReadPcn874 = { header: null, entries: [], closingVatId: null, problems };
  lines.forEach((line, i) => {
    const lineNo = i + 1;
    if (/[\r\n]/.test(line)) problems.push(`line ${lineNo}: a bare CR or LF inside the record (records end with CR LF)`);
    const first = i === 0;
    const last = i === lines.length - 1 && !first;
    if (first) result.header = readHeader(line, problems);
    else if (last) result.closingVatId = readClosing(line, lineNo, problems);
    else result.entries.push(readEntry(line, lineNo, problems));
  });
  if (lines.length < 2) problems.push(`the file has ${lines.length} record(s): a header and a closing record at least`);
  checkHeaderAgainstBody(result);
  return result;
}
