/**
 * An independent OPENFRMT v1.31 verifier (issue 15 item 6), written from the specification notes
 * (../shared/reference/openfrmt.md) and ../shared/spec/decisions.md, in test space.
 *
 * It shares no code and no conventions with the writer: nothing is imported from src/ (its layouts are
 * spec-layouts.ts, typed from the reference), and the only libraries are fflate (unzip) and iconv-lite
 * (decode the charset A000/1029 declares). It takes the bytes of an export zip and the documents as the
 * API answers them (GET …/documents, which carries lines and payments) and recomputes every C100 / D110 /
 * D120 value from those documents by the spec's rules. It answers a list of defects; empty = OK.
 *
 * It keeps its own copy of every rule the service defines once (the rounding of a quantity, quantities.ts; half
 * away from zero, divRound; the Israel wall clock of an issue time, israelDateTime below) on purpose: a
 * verifier that called the service's helpers would agree with them when they are wrong. Each copy is computed
 * another way than the service's (floats cut to 6 decimals, BigInt division, Intl per call), and the unit tests
 * hold the two to the same answers.
 *
 * What is checked (each defect names the file, the record's line number, the field number and why):
 *  - zip tree: exactly `OPENFRMT/<first 8 digits of the 9-digit VAT no.>.<YY>/<MMDDhhmm>/` holding INI.TXT and
 *    BKMVDATA.TXT (§1.2; README: BKMVDATA.TXT is not zipped twice), YY/MMDDhhmm = A000/1026–1027;
 *  - bytes: CRLF after every record and nowhere else (§1.5), bytes of the declared charset only (§1.4);
 *  - every record's length (§2.5(ה)) and every field's picture (§2.3): numeric = digits, signed = `+`/`-` and
 *    digits with zero written `+` (§2.4(יא)), dates real YYYYMMDD (mandatory ones non-zero), times HHMM,
 *    alphanumeric left-aligned, reserved areas spaces or `!`;
 *  - INI.TXT: A000 first, one summary record per type present in §2.5 order, counts = BKMVDATA counts,
 *    1002 = Z900/1155 = number of BKMVDATA records, code values of 1011/1013/1028/1029/1034, the range;
 *  - BKMVDATA.TXT: A100 first and Z900 last, once each; running numbers 1…N (§2.4(י)); the business VAT no.
 *    in every record; the primary id shared by A000/1004, A100/1103, Z900/1153 (§2.4(א)); `&OF1.31&`;
 *  - VAT numbers' check digit (1003/1102/1152/…, the maker's 1009, buyers' 1215, 1015);
 *  - documents: one C100 per issued document of the range whose type Appendix 1 codes (not a price quote) and none other; D110/D120 linked to their
 *    header by type + number (same representation, §2.4(ד)) and by 1273/1323 = 1234 (clarification 11),
 *    line numbers 1…n, as many D110 as lines and D120 as payments; every amount recomputed from the
 *    API document (signs §2.4(יב), clarifications 1, 4, 5; quantities 4 decimals; 1268 rate; payment method,
 *    acquirer and deal-type codes §5.2–§5.4; cheque fields), the totals the API answers recomputed
 *    from lines and payments (decisions.md "Money and tax"; a credit note's VAT rounded with the credits of
 *    its base document before it, issue 29), and the sums of §7 (1219 − |1220| = 1221,
 *    1221 + 1222 = 1223, Σ1267 = 1219, Σ1312 = 1223 [− 1224 on a 320]);
 *  - a foreign-currency document (issue 29): its shekel figures recomputed from its rate (shekels.ts), the
 *    frozen ones the API answers compared with them, and its records checked against them; 1217/1218.
 */
import { unzipSync } from 'fflate';
import iconv from 'iconv-lite';
import { foreignTotal, foreignWritten, isForeign, type Written } from './shekels.ts';
import { tenThousandthsOf } from './quantities.ts';
import {
  ACQUIRERS,
  APPENDIX1_DOC_TYPES,
  BKMV_LAYOUTS,
  CARD_DEAL_TYPES,
  INI_LAYOUTS,
  PAYMENT_METHODS,
  SUMMARISED_TYPES,
  SYSTEM_CONSTANT,
  type FieldSpec,
  type Layout,
} from './spec-layouts.ts';

// ---------------------------------------------------------------- inputs and outputs

/** A document as GET /v1/businesses/{bid}/documents[/{id}] answers it (the fields the verifier reads). */
export interface ApiDocument {
  id: string;
  status: string;
  docType: number;
  docNumber: number | null;
  party: { partyId?: string | null; key?: string | null; name: string; taxId?: string | null; phone?: string | null; address?: string | null } | null;
  priceMode: string;
  lines: {
    description: string;
    quantity: number;
    unitPriceExVat: number;
    sku: string | null;
    unit: string;
    lineDiscount: number;
    amount: number;
    /** A line converted from another document (POST …/convert): its base document, D110 1256/1257. */
    source?: { documentId: string; docType: number; docNumber: number; index: number };
    /** A foreign-currency document's line in agorot. */
    amountIls?: number;
  }[];
  payments: {
    method: number;
    amount: number;
    dueDate: string | null;
    bankCode: string | null;
    branchCode: string | null;
    accountNumber: string | null;
    checkNumber: string | null;
    cardCompany: string | null;
    cardName: string | null;
    cardTxType: string | null;
    amountIls?: number;
  }[];
  currency?: string;
  exchangeRate?: string | null;
  ils?: { totalExVat: number; vatAmount: number; totalIncVat: number; discountAmount: number; withholdingAmount: number } | null;
  documentDate: string;
  valueDate: string;
  vatRateBp: number | null;
  totalExVat: number;
  vatAmount: number;
  totalIncVat: number;
  discountAmount: number;
  withholdingAmount: number;
  linkedDocumentId: string | null;
  issuedAt: string | null;
}

export interface VerifyInput {
  zip: Uint8Array;
  business: { taxId: string; name?: string; address?: string | null };
  /** Every document of the business the API answers (drafts and documents outside the range are skipped). */
  documents: ApiDocument[];
  /** The requested range; defaults to A000/1024–1025. */
  range?: { from: string; to: string };
  /**
   * The business's books as the API answers them (GET …/ledger/entries and …/ledger/trial-balance at the day
   * before the range and at its end). Without it, B100/B110 records are defects (nothing supports them).
   */
  ledger?: ApiLedger;
}

export interface ApiLedger {
  entries: { entryNo: number; date: string; reference: string | null; lines: { account: string; debit: number; credit: number }[] }[];
  trialBalanceBefore: { code: string; debit: number; credit: number; balance: number }[];
  trialBalanceAt: { code: string; debit: number; credit: number; balance: number }[];
}

export interface Defect {
  file: 'zip' | 'INI.TXT' | 'BKMVDATA.TXT' | 'documents';
  /** 1-based record (line) number in the file, when the defect is in a record. */
  line: number | null;
  record: string | null;
  field: number | null;
  reason: string;
}

export function formatDefect(d: Defect): string {
  const where = [d.file, d.line !== null ? `line ${d.line}` : null, d.record, d.field !== null ? `field ${d.field}` : null].filter(Boolean).join(' ');
  return `${where}: ${d.reason}`;
}

// ---------------------------------------------------------------- small independent helpers

/** Israeli 9-digit id check digit (weights 1,2,1,2…, digit sums, total ≡ 0 mod 10). */
export function validIsraeliId(id: string): boolean {
  if (!/^\d{1,9}$/.test(id)) return false;
  const d = id.padStart(9, '0');
  if (d === '000000000') return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) {
    let x = Number(d[i]) * (i % 2 === 0 ? 1 : 2);
    if (x > 9) x -= 9;
    sum += x;
  }
  return sum % 10 === 0;
}

function realDate(yyyymmdd: string): boolean {
  if (!/^\d{8}$/.test(yyyymmdd)) return false;
  const y = Number(yyyymmdd.slice(0, 4));
  const m = Number(yyyymmdd.slice(4, 6));
  const d = Number(yyyymmdd.slice(6, 8));
  if (y < 1900 || y > 2099 || m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

const ymd = (iso: string) => iso.replaceAll('-', '');

/** round(n / d), half away from zero, on BigInts. */
function divRound(n: bigint, d: bigint): bigint {
  const neg = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (2n * an + ad) / (2n * ad);
  return neg ? -q : q;
}

/** Σ totals of the credit notes of `doc`'s base document numbered before it (zero for any other document). */
function creditedBefore(doc: ApiDocument, byId: Map<string, ApiDocument>): { ex: bigint; inc: bigint } {
  const out = { ex: 0n, inc: 0n };
  if (doc.docType !== 330 || !doc.linkedDocumentId) return out;
  for (const d of byId.values()) {
    if (d.docType !== 330 || d.linkedDocumentId !== doc.linkedDocumentId || d.docNumber === null || doc.docNumber === null || d.docNumber >= doc.docNumber)
      continue;
    out.ex += BigInt(d.totalExVat);
    out.inc += BigInt(d.totalIncVat);
  }
  return out;
}

const abs = (x: bigint) => (x < 0n ? -x : x);
/** Appendix 1 receipts, written as clarification 4 says: 400 receipt, 405 donation receipt. */
const RECEIPT_TYPES = new Set([400, 405]);

/** Israel wall-clock date (YYYYMMDD) and time (HHMM) of an instant — the production date/time of 1205/1206. */
const jerusalem = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Asia/Jerusalem',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
function israelDateTime(iso: string): { date: string; time: string } {
  const p = Object.fromEntries(jerusalem.formatToParts(new Date(iso)).map((x) => [x.type, x.value]));
  return { date: `${p.year}${p.month}${p.day}`, time: `${p.hour}${p.minute}` };
}

/** ISO-8859-8 bytes that carry a character: ASCII printable, 0xA0, 0xA2–0xBE, 0xDF–0xFA, 0xFD, 0xFE. */
function iso88598Defined(b: number): boolean {
  return (b >= 0x20 && b <= 0x7e) || b === 0xa0 || (b >= 0xa2 && b <= 0xbe) || (b >= 0xdf && b <= 0xfa) || b === 0xfd || b === 0xfe;
}

/**
 * A text as it can be written in ISO-8859-8 (§1.4): gershayim/geresh/maqaf/dashes folded to ASCII, ₪ → ש"ח,
 * niqqud, cantillation and bidi marks dropped, Latin accents stripped. Characters still outside the repertoire
 * come back as null so that the comparison accepts `?` (or nothing) in their place.
 */
function foldForCharset(s: string): (string | null)[] {
  const t = s
    .replaceAll('\u05f4', '"')
    .replaceAll('\u05f3', "'")
    .replace(/[\u05be\u2010-\u2015\u2212]/g, '-')
    .replaceAll('\u20aa', 'ש"ח')
    .replace(/[\u0591-\u05c7]/g, (c) => (c === '\u05be' || c === '\u05c0' || c === '\u05c3' || c === '\u05c6' ? c : ''))
    .replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC')
    .replace(/[\r\n\t]/g, ' ');
  const out: (string | null)[] = [];
  for (const ch of t) {
    const b = iconv.encode(ch, 'iso-8859-8');
    const ok = b.length === 1 && iso88598Defined(b[0]) && iconv.decode(b, 'iso-8859-8') === ch;
    out.push(ok ? ch : null);
  }
  return out;
}

/** Does the field's text (right-trimmed) say `expected`, folded to the charset? */
function textMatches(field: string, expected: string): boolean {
  const got = field.replace(/ +$/, '');
  const want = foldForCharset(expected);
  // trailing spaces of the expected text are padding in a fixed field
  while (want.length && want[want.length - 1] === ' ') want.pop();
  const exact = want.map((c) => c ?? '?').join('');
  if (got === exact) return true;
  return got === want.filter((c) => c !== null).join('');
}

function foldedLength(s: string): number {
  return foldForCharset(s).length;
}

// ---------------------------------------------------------------- records

interface Rec {
  line: number;
  code: string;
  text: string;
  layout: Layout | null;
}

function fieldOf(layout: Layout, id: number): FieldSpec {
  const f = layout.fields.find((x) => x[0] === id);
  if (!f) throw new Error(`verifier: ${layout.code} has no field ${id}`);
  return f;
}

function get(r: Rec, id: number): string {
  const f = fieldOf(r.layout!, id);
  return r.text.slice(f[1] - 1, f[2]);
}

/** A signed amount's value in minor units, or null when it is not a signed amount. */
function signed(s: string): bigint | null {
  if (!/^[+-]\d+$/.test(s)) return null;
  const v = BigInt(s.slice(1));
  return s[0] === '-' ? -v : v;
}

const RESERVED = new Set([1001, 1017, 1035, 1105, 1156, 1235, 1275, 1324, 1377, 1424, 1465]);

/** Splits a file into records on CRLF, reporting bare CR/LF, a missing final CRLF and bytes outside the charset. */
function splitRecords(file: Defect['file'], bytes: Uint8Array, charset: 'iso-8859-8' | 'cp862', defects: Defect[]): { line: number; bytes: Uint8Array }[] {
  const out: { line: number; bytes: Uint8Array }[] = [];
  let start = 0;
  let line = 1;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0x0d && bytes[i + 1] === 0x0a) {
      out.push({ line, bytes: bytes.subarray(start, i) });
      line++;
      i++;
      start = i + 1;
    } else if (b === 0x0d || b === 0x0a) {
      defects.push({
        file,
        line,
        record: null,
        field: null,
        reason: `a bare ${b === 0x0d ? 'CR' : 'LF'} at byte ${i}: every record ends with CR LF and holds none (§1.5, pitfall 14)`,
      });
    } else if (charset === 'iso-8859-8' ? !iso88598Defined(b) : b < 0x20) {
      defects.push({
        file,
        line,
        record: null,
        field: null,
        reason: `byte 0x${b.toString(16)} at ${i} is not a character of the declared charset ${charset} (§1.4)`,
      });
    }
  }
  if (start < bytes.length) {
    defects.push({ file, line, record: null, field: null, reason: 'the last record does not end with CR LF (§1.5)' });
    out.push({ line, bytes: bytes.subarray(start) });
  }
  if (bytes.length === 0) defects.push({ file, line: null, record: null, field: null, reason: 'the file is empty' });
  return out;
}

/** Length and picture of every field of a record (§2.3, §2.4). */
function checkPictures(file: Defect['file'], r: Rec, defects: Defect[]) {
  const L = r.layout!;
  const bad = (field: number, reason: string) => defects.push({ file, line: r.line, record: r.code, field, reason });
  if (r.text.length !== L.length) {
    defects.push({ file, line: r.line, record: r.code, field: null, reason: `record length ${r.text.length}, the spec's ${r.code} is ${L.length} (§2.5(ה))` });
    return;
  }
  for (const [id, from, to, pic, kind, req] of L.fields) {
    const v = r.text.slice(from - 1, to);
    switch (kind) {
      case 'alpha':
        if (RESERVED.has(id)) {
          if (!/^[ !]*$/.test(v)) bad(id, `reserved area holds ${JSON.stringify(v.trim())}: spaces or "!" (§2.4(ט)(1))`);
        } else if (/^ +\S/.test(v)) bad(id, `alphanumeric ${pic} not left-aligned: ${JSON.stringify(v)} (§2.3(ה))`);
        break;
      case 'num':
        if (!/^\d+$/.test(v)) bad(id, `numeric ${pic} holds ${JSON.stringify(v)}: digits only, zero-filled (§2.3(ה),(ז))`);
        break;
      case 'unsigned':
        if (!/^\d+$/.test(v)) bad(id, `unsigned amount ${pic} holds ${JSON.stringify(v)}: digits only, no sign, no point (§2.3(ו))`);
        break;
      case 'date':
        if (!/^\d{8}$/.test(v)) bad(id, `date holds ${JSON.stringify(v)}: YYYYMMDD digits (§2.4(ב))`);
        else if (v === '00000000') {
          if (req === 'M') bad(id, 'mandatory date is empty (00000000)');
        } else if (!realDate(v)) bad(id, `date ${v} is not a real calendar date (§2.4(ב))`);
        break;
      case 'time': {
        const ok = /^\d{4}$/.test(v) && Number(v.slice(0, 2)) < 24 && Number(v.slice(2)) < 60;
        if (!ok) bad(id, `time holds ${JSON.stringify(v)}: HHMM, 24h (§2.4(ג))`);
        break;
      }
      case 'signed':
        if (/^ +$/.test(v)) {
          if (req === 'M') bad(id, `mandatory signed amount ${pic} is blank`);
        } else if (!/^[+-]\d+$/.test(v)) bad(id, `signed amount ${pic} holds ${JSON.stringify(v)}: a sign "+"/"-" then zero-filled digits, no point (§2.3(ו))`);
        else if (v[0] === '-' && /^-0+$/.test(v)) bad(id, `zero written ${v}: the value 0 is shown as positive "+" (§2.4(יא))`);
        break;
    }
  }
}

// ---------------------------------------------------------------- code tables recomputed from the API's texts

const norm = (s: string) => s.toLowerCase().replace(/[\s"'׳״\-_.]/g, '');

/** §5.3: 1 Isracard, 2 Cal, 3 Diners, 4 American Express, 6 Leumi Card (today Max); anything else 0. */
export function acquirerCode(text: string | null): number {
  if (!text) return 0;
  const t = norm(text);
  if (/^[12346]$/.test(t)) return Number(t);
  if (['isracard', 'ישראכרט', 'ישראכארט'].includes(t)) return 1;
  if (['cal', 'כאל', 'visacal', 'ויזהכאל'].includes(t)) return 2;
  if (['diners', 'dinersclub', 'דיינרס'].includes(t)) return 3;
  if (['amex', 'americanexpress', 'אמריקןאקספרס', 'אמקס'].includes(t)) return 4;
  if (['leumicard', 'leumi', 'max', 'לאומיקארד', 'לאומיכארד', 'מקס'].includes(t)) return 6;
  return 0;
}

/** §5.4: 1 regular, 2 installments, 3 credit, 4 deferred charge, 5 other; unknown 0. */
export function dealTypeCode(text: string | null): number {
  if (!text) return 0;
  const t = norm(text);
  if (/^[1-5]$/.test(t)) return Number(t);
  if (['regular', 'רגיל'].includes(t)) return 1;
  if (['installments', 'installment', 'payments', 'תשלומים'].includes(t)) return 2;
  if (['credit', 'קרדיט'].includes(t)) return 3;
  if (['deferred', 'deferredcharge', 'חיובנדחה'].includes(t)) return 4;
  if (['other', 'אחר'].includes(t)) return 5;
  return 0;
}

/** §5.2: codes 1–9; the API's app codes 91–93 (Bit, PayBox, other apps) are "other" (9). */
const methodCode = (m: number) => (m >= 91 && m <= 93 ? 9 : m);
const digitsValue = (s: string | null) => {
  const d = (s ?? '').replace(/\D/g, '');
  return d ? BigInt(d) : 0n;
};

// ---------------------------------------------------------------- the verifier

export function verifyOpenfrmt(input: VerifyInput): Defect[] {
  const defects: Defect[] = [];
  const push = (d: Defect) => defects.push(d);
  const vat9 = input.business.taxId.padStart(9, '0');

  // ---- zip tree (§1.2, §1.3)
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(input.zip);
  } catch (e) {
    return [{ file: 'zip', line: null, record: null, field: null, reason: `not a readable zip: ${(e as Error).message}` }];
  }
  const names = Object.keys(entries).filter((n) => !n.endsWith('/'));
  const treeRe = /^OPENFRMT\/(\d{8})\.(\d{2})\/(\d{8})\/(INI\.TXT|BKMVDATA\.TXT)$/;
  const ini = names.find((n) => treeRe.exec(n)?.[4] === 'INI.TXT');
  const bkmv = names.find((n) => treeRe.exec(n)?.[4] === 'BKMVDATA.TXT');
  for (const n of names)
    if (!treeRe.test(n))
      push({
        file: 'zip',
        line: null,
        record: null,
        field: null,
        reason: `entry ${n} is outside OPENFRMT/<NNNNNNNN>.<YY>/<MMDDhhmm>/{INI.TXT,BKMVDATA.TXT} (§1.2)`,
      });
  if (!ini || !bkmv) {
    push({ file: 'zip', line: null, record: null, field: null, reason: `INI.TXT and BKMVDATA.TXT must both be in the tree; entries: ${names.join(', ')}` });
    return defects;
  }
  const [, dirVat, dirYY, dirStamp] = treeRe.exec(ini)!;
  if (ini.replace(/INI\.TXT$/, '') !== bkmv.replace(/BKMVDATA\.TXT$/, ''))
    push({ file: 'zip', line: null, record: null, field: null, reason: `INI.TXT and BKMVDATA.TXT are in different directories (${ini}, ${bkmv})` });
  if (names.length !== 2)
    push({ file: 'zip', line: null, record: null, field: null, reason: `the zip holds ${names.length} files, the production is INI.TXT + BKMVDATA.TXT` });
  if (dirVat !== vat9.slice(0, 8))
    push({
      file: 'zip',
      line: null,
      record: null,
      field: null,
      reason: `directory ${dirVat}: the first eight digits of the VAT number ${vat9} are ${vat9.slice(0, 8)} (§2.2(ב))`,
    });

  // ---- charset from A000/1029 (column 396), read on the raw bytes
  const iniBytes = entries[ini];
  const declared = iniBytes.length >= 396 ? String.fromCharCode(iniBytes[395]) : '?';
  const charset = declared === '2' ? 'cp862' : 'iso-8859-8';
  if (declared !== '1' && declared !== '2')
    push({ file: 'INI.TXT', line: 1, record: 'A000', field: 1029, reason: `character set ${JSON.stringify(declared)}: 1 (ISO-8859-8-i) or 2 (CP-862) (§1.4)` });
  const decode = (b: Uint8Array) => iconv.decode(Buffer.from(b), charset);

  // ---- INI.TXT
  const iniRecs: Rec[] = splitRecords('INI.TXT', iniBytes, charset, defects).map(({ line, bytes }) => {
    const text = decode(bytes);
    const code = text.slice(0, 4);
    const layout = line === 1 ? INI_LAYOUTS.A000 : INI_LAYOUTS.SUMMARY;
    return { line, code, text, layout };
  });
  const a000 = iniRecs[0];
  if (!a000 || a000.code !== 'A000') {
    push({ file: 'INI.TXT', line: 1, record: a000?.code ?? null, field: 1000, reason: 'INI.TXT starts with the A000 record (§2.5(ב))' });
    return defects;
  }
  for (const r of iniRecs) checkPictures('INI.TXT', r, defects);
  if (a000.text.length !== 466) return defects;
  const A = (id: number) => get(a000, id);
  const iniBad = (field: number, reason: string) => push({ file: 'INI.TXT', line: 1, record: 'A000', field, reason });
  if (A(1003) !== vat9) iniBad(1003, `business VAT number ${A(1003)}, the business's is ${vat9}`);
  if (!validIsraeliId(A(1003))) iniBad(1003, `VAT number ${A(1003)} fails its check digit`);
  if (!/^\d{15}$/.test(A(1004)) || /^0+$/.test(A(1004))) iniBad(1004, `primary id ${A(1004)}: a random 15-digit number (§2.4(א))`);
  if (A(1005) !== SYSTEM_CONSTANT) iniBad(1005, `system constant ${JSON.stringify(A(1005))}, the spec's is "${SYSTEM_CONSTANT}"`);
  if (!validIsraeliId(A(1009))) iniBad(1009, `software maker's VAT number ${A(1009)} fails its check digit (or is zero)`);
  for (const f of [1007, 1008, 1010, 1018, 1030]) if (!A(f).trim()) iniBad(f, 'mandatory text is blank');
  if (!['1', '2'].includes(A(1011))) iniBad(1011, `software type ${A(1011)}: 1 single-year or 2 multi-year (§3.1)`);
  if (!['0', '1', '2'].includes(A(1013))) iniBad(1013, `bookkeeping type ${A(1013)}: 0, 1 or 2`);
  if (!['0', '1', '2'].includes(A(1014))) iniBad(1014, `balance level ${A(1014)}: 1 or 2 (0 when not double-entry)`);
  if (!/^0+$/.test(A(1015)) && !validIsraeliId(A(1015))) iniBad(1015, `company number ${A(1015)} fails its check digit`);
  if (!['0', '1', '2'].includes(A(1028))) iniBad(1028, `language code ${A(1028)}: 0 Hebrew, 1 Arabic, 2 other`);
  if (!/^([A-Z]{3}| {3})$/.test(A(1032))) iniBad(1032, `leading currency ${JSON.stringify(A(1032))}: an ISO 4217 code (default ILS)`);
  if (!['0', '1'].includes(A(1034))) iniBad(1034, `branches flag ${A(1034)}: 0 or 1`);
  if (A(1026) !== '20' + dirYY + dirStamp.slice(0, 4))
    push({
      file: 'zip',
      line: null,
      record: null,
      field: null,
      reason: `directory ${dirYY}/${dirStamp} does not carry the production date ${A(1026)} of A000/1026 (§2.2(ב),(ג))`,
    });
  if (A(1027) !== dirStamp.slice(4))
    push({
      file: 'zip',
      line: null,
      record: null,
      field: null,
      reason: `directory minute ${dirStamp.slice(4)} is not the production time ${A(1027)} of A000/1027 (§2.2(ג))`,
    });
  if (!A(1012).includes(`${dirVat}.${dirYY}`) || !A(1012).includes(dirStamp))
    iniBad(1012, `path ${JSON.stringify(A(1012).trim())} does not name the directory ${dirVat}.${dirYY}\\${dirStamp} (§2.2)`);
  if (input.business.name !== undefined) {
    const name = input.business.name;
    if (foldedLength(name) > 50)
      iniBad(
        1018,
        `the business name has ${foldedLength(name)} characters, A000/1018 is X(50): written as ${JSON.stringify(A(1018).trim())}, cut (the name the API holds is not the name in the file)`,
      );
    else if (!textMatches(A(1018), name)) iniBad(1018, `business name ${JSON.stringify(A(1018).trim())}, the business is ${JSON.stringify(name)}`);
  }
  if (input.business.address) {
    const address = input.business.address;
    const street = A(1019).trimEnd();
    if (foldedLength(address) > 50 && street)
      iniBad(1019, `the business address has ${foldedLength(address)} characters, A000/1019 is X(50): written as ${JSON.stringify(street)}, cut`);
    else if (
      street &&
      !foldForCharset(address)
        .map((c) => c ?? '?')
        .join('')
        .startsWith(street)
    )
      iniBad(1019, `street ${JSON.stringify(street)} is not from the business address ${JSON.stringify(address)}`);
  }
  let from = input.range?.from ? ymd(input.range.from) : null;
  let to = input.range?.to ? ymd(input.range.to) : null;
  if (A(1011) === '2') {
    if (!realDate(A(1024)) || !realDate(A(1025))) iniBad(1024, `multi-year software needs the range in 1024/1025 (${A(1024)}–${A(1025)})`);
    else if (A(1024) > A(1025)) iniBad(1025, `range ends ${A(1025)} before it starts ${A(1024)}`);
    if (from && A(1024) !== from) iniBad(1024, `range start ${A(1024)}, requested ${from}`);
    if (to && A(1025) !== to) iniBad(1025, `range end ${A(1025)}, requested ${to}`);
    from ??= A(1024);
    to ??= A(1025);
  } else if (A(1011) === '1' && !/^(19|20)\d\d$/.test(A(1023))) iniBad(1023, `single-year software needs the tax year in 1023 (${A(1023)})`);

  // ---- BKMVDATA.TXT
  const recs: Rec[] = splitRecords('BKMVDATA.TXT', entries[bkmv], charset, defects).map(({ line, bytes }) => {
    const text = decode(bytes);
    const code = text.slice(0, 4);
    return { line, code, text, layout: BKMV_LAYOUTS[code] ?? null };
  });
  const bad = (r: Rec, field: number | null, reason: string) => push({ file: 'BKMVDATA.TXT', line: r.line, record: r.code, field, reason });
  const counts = new Map<string, number>();
  for (const r of recs) {
    if (!r.layout) {
      bad(r, null, `unknown record code ${JSON.stringify(r.code)} (§2.5)`);
      continue;
    }
    counts.set(r.code, (counts.get(r.code) ?? 0) + 1);
    checkPictures('BKMVDATA.TXT', r, defects);
    if (r.text.length !== r.layout.length) continue;
    const base = r.layout.fields[0][0];
    if (get(r, base + 1) !== String(r.line).padStart(9, '0'))
      bad(r, base + 1, `running record number ${get(r, base + 1)}, its position in the file is ${r.line} (§2.4(י))`);
    if (get(r, base + 2) !== vat9) bad(r, base + 2, `business VAT number ${get(r, base + 2)}, the business's is ${vat9}`);
  }
  const N = recs.length;
  const first = recs[0];
  const last = recs[N - 1];
  if (!first || first.code !== 'A100')
    push({ file: 'BKMVDATA.TXT', line: 1, record: first?.code ?? null, field: 1100, reason: 'BKMVDATA.TXT starts with one A100 (§2.5(ג))' });
  if (!last || last.code !== 'Z900')
    push({ file: 'BKMVDATA.TXT', line: N, record: last?.code ?? null, field: 1150, reason: 'BKMVDATA.TXT ends with one Z900 (§2.5(ג))' });
  for (const code of ['A100', 'Z900'])
    if ((counts.get(code) ?? 0) !== 1)
      push({ file: 'BKMVDATA.TXT', line: null, record: code, field: null, reason: `${counts.get(code) ?? 0} ${code} records, exactly one (§2.5(ג))` });
  const okLen = (r: Rec | undefined): r is Rec => !!r && !!r.layout && r.text.length === r.layout.length;
  if (okLen(first) && first.code === 'A100') {
    if (get(first, 1103) !== A(1004)) bad(first, 1103, `primary id ${get(first, 1103)} ≠ A000/1004 ${A(1004)} (§2.4(א))`);
    if (get(first, 1104) !== SYSTEM_CONSTANT) bad(first, 1104, `system constant ${JSON.stringify(get(first, 1104))}`);
  }
  if (okLen(last) && last.code === 'Z900') {
    if (get(last, 1153) !== A(1004)) bad(last, 1153, `primary id ${get(last, 1153)} ≠ A000/1004 ${A(1004)} (§2.4(א))`);
    if (get(last, 1154) !== SYSTEM_CONSTANT) bad(last, 1154, `system constant ${JSON.stringify(get(last, 1154))}`);
    if (Number(get(last, 1155)) !== N) bad(last, 1155, `total records ${Number(get(last, 1155))}, the file has ${N} including A100 and Z900 (§4.2)`);
  }
  if (Number(A(1002)) !== N) iniBad(1002, `BKMVDATA total ${Number(A(1002))}, the file has ${N} records (§3.1: = Z900/1155)`);

  // ---- INI summary records (§3.2)
  const summaries = iniRecs.slice(1);
  const seen = new Map<string, number>();
  let lastOrder = -1;
  for (const r of summaries) {
    if (r.text.length !== 19) continue;
    const code = r.text.slice(0, 4);
    const order = (SUMMARISED_TYPES as readonly string[]).indexOf(code);
    if (order < 0) {
      push({
        file: 'INI.TXT',
        line: r.line,
        record: code,
        field: 1050,
        reason: `summary of ${JSON.stringify(code)}: only B100, B110, C100, D110, D120, M100 are summarised (§3.2)`,
      });
      continue;
    }
    if (seen.has(code)) push({ file: 'INI.TXT', line: r.line, record: code, field: 1050, reason: `a second summary record for ${code}` });
    if (order < lastOrder)
      push({ file: 'INI.TXT', line: r.line, record: code, field: 1050, reason: `summary records out of the §2.5 order B100, B110, C100, D110, D120, M100` });
    lastOrder = Math.max(lastOrder, order);
    const n = Number(r.text.slice(4));
    seen.set(code, n);
    if (n !== (counts.get(code) ?? 0))
      push({
        file: 'INI.TXT',
        line: r.line,
        record: code,
        field: 1051,
        reason: `INI declares ${n} ${code} records, BKMVDATA.TXT holds ${counts.get(code) ?? 0} (§3.2)`,
      });
  }
  for (const code of SUMMARISED_TYPES) {
    if ((counts.get(code) ?? 0) > 0 && !seen.has(code))
      push({
        file: 'INI.TXT',
        line: null,
        record: code,
        field: 1050,
        reason: `BKMVDATA.TXT holds ${counts.get(code)} ${code} records but INI.TXT has no summary record for them (§3.2)`,
      });
  }

  // ---- documents
  verifyDocuments(input, { recs: recs.filter(okLen), branches: A(1034) === '1', range: { from, to }, produced: A(1026) + A(1027), push });
  // ---- the ledger (double-entry books)
  if (input.ledger) verifyLedger(input.ledger, { recs: recs.filter(okLen), range: { from, to }, bookkeeping: A(1013), balanceLevel: A(1014), push });
  return defects;
}

// ---------------------------------------------------------------- the ledger: B100 / B110 against the API's books

function verifyLedger(
  ledger: ApiLedger,
  {
    recs,
    range,
    bookkeeping,
    balanceLevel,
    push,
  }: { recs: Rec[]; range: { from: string | null; to: string | null }; bookkeeping: string; balanceLevel: string; push: (d: Defect) => void },
) {
  const bad = (r: Rec | null, field: number | null, reason: string) =>
    push({ file: 'BKMVDATA.TXT', line: r?.line ?? null, record: r?.code ?? null, field, reason });
  const b100 = recs.filter((r) => r.code === 'B100');
  const b110 = recs.filter((r) => r.code === 'B110');
  if (b100.length + b110.length > 0) {
    if (bookkeeping !== '2')
      push({ file: 'INI.TXT', line: 1, record: 'A000', field: 1013, reason: `B100/B110 are double-entry books: 1013 must be 2, not ${bookkeeping}` });
    if (balanceLevel !== '1' && balanceLevel !== '2')
      push({ file: 'INI.TXT', line: 1, record: 'A000', field: 1014, reason: `balance level ${balanceLevel}: mandatory (1 or 2) in double-entry books` });
  }
  const amount = (r: Rec, id: number) => Number(signed(get(r, id)) ?? NaN);
  // Expected lines: every line of every entry dated in the range, by (entry, line).
  const expected = new Map<string, { account: string; side: string; amount: number; date: string }>();
  const entriesInRange = ledger.entries.filter((e) => (!range.from || ymd(e.date) >= range.from) && (!range.to || ymd(e.date) <= range.to));
  for (const e of entriesInRange) {
    e.lines.forEach((l, i) =>
      expected.set(`${e.entryNo}|${i + 1}`, { account: l.account, side: l.debit > 0 ? '1' : '2', amount: l.debit || l.credit, date: ymd(e.date) }),
    );
  }
  const sums = new Map<string, { debit: number; credit: number }>();
  const perEntry = new Map<string, { debit: number; credit: number; line: Rec }>();
  const seen = new Set<string>();
  for (const r of b100) {
    const entry = String(Number(get(r, 1353)));
    const key = `${entry}|${Number(get(r, 1354))}`;
    const account = get(r, 1364).trimEnd();
    const side = get(r, 1366);
    const value = amount(r, 1368);
    if (value <= 0) bad(r, 1368, `amount ${get(r, 1368)}: positive on both sides (the side is 1366, clarification 8)`);
    const want = expected.get(key);
    if (!want) bad(r, 1353, `entry ${entry} line ${get(r, 1354)} is not a line of the books in the range`);
    else {
      if (want.account !== account) bad(r, 1364, `account ${account}, the books have ${want.account}`);
      if (want.side !== side) bad(r, 1366, `side ${side}, the books have ${want.side}`);
      if (want.amount !== value) bad(r, 1368, `amount ${value}, the books have ${want.amount}`);
      if (want.date !== get(r, 1362)) bad(r, 1362, `date ${get(r, 1362)}, the entry is dated ${want.date}`);
    }
    if (seen.has(key)) bad(r, 1354, `entry ${entry} line ${get(r, 1354)} appears twice`);
    seen.add(key);
    const s = sums.get(account) ?? { debit: 0, credit: 0 };
    const e = perEntry.get(entry) ?? { debit: 0, credit: 0, line: r };
    if (side === '1') {
      s.debit += value;
      e.debit += value;
    } else {
      s.credit += value;
      e.credit += value;
    }
    sums.set(account, s);
    perEntry.set(entry, e);
  }
  for (const key of expected.keys()) if (!seen.has(key)) bad(null, 1353, `entry ${key.replace('|', ' line ')} of the books is missing from the file`);
  for (const [entry, e] of perEntry) if (e.debit !== e.credit) bad(e.line, 1368, `entry ${entry} is not balanced: debits ${e.debit}, credits ${e.credit}`);

  const accounts = new Map<string, Rec>();
  for (const r of b110) {
    const key = get(r, 1403).trimEnd();
    if (accounts.has(key)) bad(r, 1403, `account ${key} has a second B110 (line ${accounts.get(key)!.line}); 1403 is unique`);
    accounts.set(key, r);
    if (!get(r, 1404).trim()) bad(r, 1404, 'account name is blank');
  }
  for (const account of sums.keys()) if (!accounts.has(account)) bad(null, 1364, `account ${account} has B100 lines but no B110 (§4.6)`);
  const before = new Map(ledger.trialBalanceBefore.map((a) => [a.code, a]));
  const at = new Map(ledger.trialBalanceAt.map((a) => [a.code, a]));
  for (const [code, r] of accounts) {
    const s = sums.get(code) ?? { debit: 0, credit: 0 };
    if (amount(r, 1415) !== s.debit || amount(r, 1416) !== s.credit)
      bad(r, 1415, `account ${code}: debits/credits ${amount(r, 1415)}/${amount(r, 1416)}, its B100 lines ${s.debit}/${s.credit}`);
    const opening = before.get(code)?.balance ?? 0;
    if (amount(r, 1414) !== opening)
      bad(r, 1414, `account ${code}: opening balance ${amount(r, 1414)}, the trial balance the day before the range says ${opening}`);
    const closing = at.get(code)?.balance ?? 0;
    if (amount(r, 1414) + amount(r, 1415) - amount(r, 1416) !== closing)
      bad(r, 1414, `account ${code}: 1414 + 1415 − 1416 is not its trial-balance figure ${closing} at the end of the range`);
  }
  for (const a of ledger.trialBalanceAt) {
    if (!accounts.has(a.code) && b110.length + b100.length > 0) bad(null, 1403, `account ${a.code} of the trial balance has no B110`);
  }
}

// ---------------------------------------------------------------- per-document checks

function verifyDocuments(
  input: VerifyInput,
  {
    recs,
    branches,
    range,
    produced,
    push,
  }: { recs: Rec[]; branches: boolean; range: { from: string | null; to: string | null }; produced: string; push: (d: Defect) => void },
) {
  const bad = (r: Rec, field: number | null, reason: string) => push({ file: 'BKMVDATA.TXT', line: r.line, record: r.code, field, reason });
  const docBad = (reason: string) => push({ file: 'documents', line: null, record: null, field: null, reason });
  const byId = new Map(input.documents.map((d) => [d.id, d]));
  // A document of a type Appendix 1 has no code for (a price quote, 10) cannot be written, so none is expected.
  const inRange = (d: ApiDocument) =>
    d.status === 'issued' &&
    APPENDIX1_DOC_TYPES.has(d.docType) &&
    (!range.from || ymd(d.documentDate) >= range.from) &&
    (!range.to || ymd(d.documentDate) <= range.to);
  const docs = input.documents.filter(inRange);
  const numKey = (type: string | number, num: string) => `${Number(type)}|${/^\d+$/.test(num) ? String(BigInt(num)) : num}`;

  const headers = new Map<string, Rec>();
  const links = new Map<string, Rec>();
  const d110 = new Map<string, Rec[]>();
  const d120 = new Map<string, Rec[]>();
  for (const r of recs) {
    if (r.code === 'C100') {
      const type = Number(get(r, 1203));
      if (!APPENDIX1_DOC_TYPES.has(type)) bad(r, 1203, `document type ${get(r, 1203)} is not in Appendix 1 (§2.4(ה))`);
      const num = get(r, 1204).trimEnd();
      if (!num) bad(r, 1204, 'document number is blank');
      const k = numKey(type, num);
      if (headers.has(k)) bad(r, 1204, `a second C100 for document ${type} ${num} (line ${headers.get(k)!.line})`);
      else headers.set(k, r);
      const link = get(r, 1234);
      if (!/^0+$/.test(link)) {
        if (links.has(link)) bad(r, 1234, `link field ${link} is shared with the C100 at line ${links.get(link)!.line} (clarification 11)`);
        links.set(link, r);
      }
      // the run reads documents issued before it started: none can have been produced after A000/1026–1027
      if (get(r, 1205) + get(r, 1206) > produced)
        bad(r, 1205, `document produced ${get(r, 1205)} ${get(r, 1206)}, after the run's own production time ${produced} (A000/1026–1027)`);
      if (get(r, 1228) !== ' ')
        bad(r, 1228, `cancelled flag ${JSON.stringify(get(r, 1228))}: an issued document is never cancelled in place (blank; "1" = cancelled)`);
      if (branches && !get(r, 1231).trim()) bad(r, 1231, 'branch id is mandatory when A000/1034 = 1 (clarification 3)');
    } else if (r.code === 'D110' || r.code === 'D120') {
      const t = r.code === 'D110' ? 1253 : 1303;
      const k = numKey(get(r, t), get(r, t + 1).trimEnd());
      const m = r.code === 'D110' ? d110 : d120;
      if (!m.has(k)) m.set(k, []);
      m.get(k)!.push(r);
    } else if (r.code === 'M100' || ((r.code === 'B100' || r.code === 'B110') && !input.ledger)) {
      bad(r, null, `${r.code} record: the service keeps no ${r.code === 'M100' ? 'inventory' : 'ledger'}; nothing in the API's documents supports it`);
    }
  }

  // detail records without a header
  for (const [m, code] of [
    [d110, 'D110'],
    [d120, 'D120'],
  ] as const) {
    for (const [k, rs] of m)
      if (!headers.has(k)) for (const r of rs) bad(r, code === 'D110' ? 1254 : 1304, `no C100 for document ${k.replace('|', ' ')} (clarification 11)`);
  }

  // occasional customers' keys must not merge different buyers (issue 15 item 4)
  const anonKeys = new Map<string, ApiDocument>();
  const matched = new Set<string>();
  for (const doc of docs) {
    const k = numKey(doc.docType, String(doc.docNumber));
    const h = headers.get(k);
    if (!h) {
      docBad(`issued document ${doc.docType} ${doc.docNumber} (${doc.id}, ${doc.documentDate}) has no C100 in the export`);
      continue;
    }
    matched.add(k);
    verifyDocument(doc, { h, lines: d110.get(k) ?? [], pays: d120.get(k) ?? [], byId, branches, bad });
    const key = get(h, 1225).trimEnd();
    if (!doc.party?.key && !doc.party?.taxId) {
      const other = anonKeys.get(key);
      // A credit note takes its base document's key, and so do the several partial credits of one base (issue 29).
      const related =
        other &&
        (other.linkedDocumentId === doc.id || doc.linkedDocumentId === other.id || (!!doc.linkedDocumentId && doc.linkedDocumentId === other.linkedDocumentId));
      if (other && !related)
        bad(
          h,
          1225,
          `occasional customer key ${JSON.stringify(key)} is also the key of ${other.docType} ${other.docNumber}: two walk-in buyers merged into one customer`,
        );
      anonKeys.set(key, doc);
    }
  }
  for (const [k, h] of headers)
    if (!matched.has(k)) bad(h, 1204, `C100 for document ${k.replace('|', ' ')}: no issued document of the range has that type and number`);
  for (const [k, h] of headers) {
    const [type, num] = k.split('|');
    const c = get(h, 1230);
    if ((range.from && c < range.from) || (range.to && c > range.to))
      bad(h, 1230, `document ${type} ${num} dated ${c} is outside the range ${range.from}–${range.to} (§2.1, clarification 12: by document date)`);
  }
}

function verifyDocument(
  doc: ApiDocument,
  {
    h,
    lines,
    pays,
    byId,
    branches,
    bad,
  }: { h: Rec; lines: Rec[]; pays: Rec[]; byId: Map<string, ApiDocument>; branches: boolean; bad: (r: Rec, field: number | null, reason: string) => void },
) {
  const tag = `${doc.docType} ${doc.docNumber}`;
  const eq = (r: Rec, field: number, { got, want }: { got: bigint | null; want: bigint }, why: string) => {
    if (got !== want) bad(r, field, `${tag}: ${got === null ? 'not an amount' : fmtAmount(got)}, expected ${fmtAmount(want)} — ${why}`);
  };
  const near = (r: Rec, field: number, { got, want, tol }: { got: bigint | null; want: bigint; tol: bigint }, why: string) => {
    if (got === null || abs(got - want) > tol)
      bad(r, field, `${tag}: ${got === null ? 'not an amount' : fmtAmount(got)}, expected ${fmtAmount(want)} (±${tol}) — ${why}`);
  };
  const S = (r: Rec, id: number) => signed(get(r, id));
  const num = (r: Rec, id: number) => BigInt(/^\d+$/.test(get(r, id)) ? get(r, id) : '0');

  // ---- header identity
  if (Number(get(h, 1203)) !== doc.docType) bad(h, 1203, `${tag}: type ${get(h, 1203)}`);
  if (doc.issuedAt) {
    const { date, time } = israelDateTime(doc.issuedAt);
    if (get(h, 1205) !== date) bad(h, 1205, `${tag}: production date ${get(h, 1205)}, issued ${date} Israel time (clarification 12)`);
    if (get(h, 1206) !== '0000' && get(h, 1206) !== time) bad(h, 1206, `${tag}: production time ${get(h, 1206)}, issued ${time} Israel time`);
  }
  if (get(h, 1230) !== ymd(doc.documentDate)) bad(h, 1230, `${tag}: document date ${get(h, 1230)}, the document says ${doc.documentDate}`);
  if (get(h, 1216) !== '00000000' && get(h, 1216) !== ymd(doc.valueDate))
    bad(h, 1216, `${tag}: value date ${get(h, 1216)}, the document's is ${doc.valueDate}`);

  // party (1207/1225 mandatory for types 100–710)
  const p = doc.party;
  if (!get(h, 1207).trim()) bad(h, 1207, `${tag}: customer name is mandatory for document types 100–710 (§4.3)`);
  else if (p?.name && !textMatches(get(h, 1207), p.name))
    bad(h, 1207, `${tag}: customer name ${JSON.stringify(get(h, 1207).trim())}, the document's is ${JSON.stringify(p.name)}`);
  if (!get(h, 1225).trim()) bad(h, 1225, `${tag}: customer key is mandatory for document types 100–710 (§4.3)`);
  else if (p?.key && get(h, 1225).trimEnd() !== p.key)
    bad(h, 1225, `${tag}: customer key ${JSON.stringify(get(h, 1225).trim())}, the saved party's key is ${JSON.stringify(p.key)}`);
  if (p?.address && !textMatches(get(h, 1208), p.address))
    bad(h, 1208, `${tag}: street ${JSON.stringify(get(h, 1208).trim())}, the party's address is ${JSON.stringify(p.address)}`);
  if (p?.phone && !textMatches(get(h, 1214), p.phone))
    bad(h, 1214, `${tag}: phone ${JSON.stringify(get(h, 1214).trim())}, the party's is ${JSON.stringify(p.phone)}`);
  const buyer = p?.taxId && /^\d{1,9}$/.test(p.taxId) ? p.taxId.padStart(9, '0') : '000000000';
  if (get(h, 1215) !== buyer) bad(h, 1215, `${tag}: buyer VAT number ${get(h, 1215)}, the party's is ${buyer}`);
  if (get(h, 1215) !== '000000000' && !validIsraeliId(get(h, 1215))) bad(h, 1215, `${tag}: buyer VAT number ${get(h, 1215)} fails its check digit`);
  // A donation receipt identifies its donor (israel-tax.md §7: reported to the donation system by ID number).
  if (doc.docType === 405 && get(h, 1215) === '000000000') bad(h, 1215, `${tag}: a donation receipt (405) without the donor's ID number`);
  const foreign = isForeign(doc);
  if (foreign) {
    // C100/1217–1218: the total in its currency (hundredths) and the code (Appendix 2); positive on a credit note.
    const total = foreignTotal(doc);
    if (S(h, 1217) !== (doc.docType === 330 ? abs(total) : total)) bad(h, 1217, `${tag}: ${get(h, 1217)}, the total in ${doc.currency} is ${total} hundredths`);
    if (get(h, 1218) !== doc.currency) bad(h, 1218, `${tag}: currency ${JSON.stringify(get(h, 1218))}, the document's is ${doc.currency}`);
  } else if (get(h, 1217).trim() && S(h, 1217) !== 0n) bad(h, 1217, `${tag}: a foreign-currency total on a document in shekels`);

  // ---- recomputation from the API document (decisions.md "Money and tax")
  const rate = BigInt(doc.vatRateBp ?? 0);
  const gross = doc.priceMode === 'gross';
  const toEx = (x: bigint) => (gross && rate !== 0n ? divRound(x * 10000n, 10000n + rate) : x);
  const lineAmounts = doc.lines.map((l) => divRound(tenThousandthsOf(l.quantity) * BigInt(l.unitPriceExVat), 10000n) - BigInt(l.lineDiscount));
  const linesSum = lineAmounts.reduce((a, b) => a + b, 0n);
  const payments = doc.payments.reduce((a, x) => a + BigInt(x.amount), 0n);
  const disc = BigInt(doc.discountAmount);
  const wh = BigInt(doc.withholdingAmount);
  const T = { ex: BigInt(doc.totalExVat), vat: BigInt(doc.vatAmount), inc: BigInt(doc.totalIncVat) };
  doc.lines.forEach((l, i) => {
    if (BigInt(l.amount) !== lineAmounts[i])
      bad(h, null, `${tag} line ${i + 1}: the API's amount ${l.amount} ≠ round(${l.quantity} × ${l.unitPriceExVat}) − ${l.lineDiscount} = ${lineAmounts[i]}`);
  });
  if (RECEIPT_TYPES.has(doc.docType)) {
    if (T.inc !== payments || T.ex !== payments || T.vat !== 0n)
      bad(h, null, `${tag}: the API's totals ${T.ex}/${T.vat}/${T.inc} ≠ Σ payments ${payments} with VAT 0 (decisions.md: a receipt's total is Σ payments)`);
  } else {
    // A credit note's rounding is of its base document's credits so far (docs/documents.md "Partial credit
    // notes"): round(credited so far) less what the earlier credits took; the first credit is rounded alone.
    const before = creditedBefore(doc, byId);
    let ex: bigint, vat: bigint, inc: bigint;
    if (gross) {
      inc = linesSum - disc;
      ex = divRound((before.inc + inc) * 10000n, 10000n + rate) - divRound(before.inc * 10000n, 10000n + rate);
      vat = inc - ex;
    } else {
      ex = linesSum - disc;
      vat = divRound((before.ex + ex) * rate, 10000n) - divRound(before.ex * rate, 10000n);
      inc = ex + vat;
    }
    if (T.ex !== ex || T.vat !== vat || T.inc !== inc)
      bad(h, null, `${tag}: the API's totals ${T.ex}/${T.vat}/${T.inc} ≠ recomputed ${ex}/${vat}/${inc} (decisions.md "Money and tax", ${doc.priceMode})`);
    if (doc.docType === 320 && payments !== T.inc - wh) bad(h, null, `${tag}: Σ payments ${payments} ≠ total ${T.inc} − withholding ${wh} (decisions.md)`);
  }

  // ---- what the records carry: a foreign-currency document's shekels (shekels.ts), else its own figures
  const w: Written = foreign
    ? foreignWritten(doc, byId, (reason) => bad(h, null, `${tag}: ${reason}`))
    : {
        T,
        disc,
        wh,
        prices: doc.lines.map((l) => BigInt(l.unitPriceExVat)),
        lineDiscounts: doc.lines.map((l) => BigInt(l.lineDiscount)),
        lineAmounts,
        payments: doc.payments.map((x) => BigInt(x.amount)),
      };
  {
    const { T, disc, wh, lineAmounts } = w;
    const linesSum = lineAmounts.reduce((a, b) => a + b, 0n);
    const payments = w.payments.reduce((a, b) => a + b, 0n);
    writtenAmounts({ doc, h, lines, pays, byId, branches, tag, T, disc, wh, lineAmounts, linesSum, payments, w, gross, rate, toEx, eq, near, S, num, bad });
  }
}

/** C100, D110 and D120 against the figures they must carry (`w`). */
function writtenAmounts(x: {
  doc: ApiDocument;
  h: Rec;
  lines: Rec[];
  pays: Rec[];
  byId: Map<string, ApiDocument>;
  branches: boolean;
  tag: string;
  T: Written['T'];
  disc: bigint;
  wh: bigint;
  lineAmounts: bigint[];
  linesSum: bigint;
  payments: bigint;
  w: Written;
  gross: boolean;
  rate: bigint;
  toEx: (x: bigint) => bigint;
  eq: (r: Rec, field: number, values: { got: bigint | null; want: bigint }, why: string) => void;
  near: (r: Rec, field: number, values: { got: bigint | null; want: bigint; tol: bigint }, why: string) => void;
  S: (r: Rec, id: number) => bigint | null;
  num: (r: Rec, id: number) => bigint;
  bad: (r: Rec, field: number | null, reason: string) => void;
}) {
  const { doc, h, lines, pays, byId, branches, tag, T, disc, wh, lineAmounts, linesSum, payments, w, gross, rate, toEx, eq, near, S, num, bad } = x;
  // ---- C100 amounts (§4.3; signs §2.4(יב), clarifications 1, 4, 5)
  const c = { 1219: S(h, 1219), 1220: S(h, 1220), 1221: S(h, 1221), 1222: S(h, 1222), 1223: S(h, 1223), 1224: S(h, 1224) };
  if (RECEIPT_TYPES.has(doc.docType)) {
    const why = 'clarification 4: a receipt has 1219 = 1221 = 1223 = the amount received, 1220 = 1222 = 0, 1224 = withholding';
    eq(h, 1219, { got: c[1219], want: payments }, why);
    eq(h, 1220, { got: c[1220], want: 0n }, why);
    eq(h, 1221, { got: c[1221], want: payments }, why);
    eq(h, 1222, { got: c[1222], want: 0n }, why);
    eq(h, 1223, { got: c[1223], want: payments }, why);
    // withholding does not reduce the document (clarification 4): it takes the document's own sign, so a
    // reversing (negative) receipt reverses its withholding too (Appendix 1: a negative document reverses the effect)
    eq(h, 1224, { got: c[1224], want: wh }, "clarification 4: withholding shown as not reducing the document (the document's sign)");
    if (payments < 0n && wh > 0n) bad(h, 1224, `${tag}: a negative receipt with a positive withholding in the API`);
  } else {
    const discEx = toEx(disc);
    const why = doc.docType === 330 ? '§2.4(יב)/clarification 1: a credit note is written with positive values' : '§4.3';
    if (gross) {
      eq(h, 1220, { got: c[1220], want: -discEx }, 'clarification 5: document discount negative, brought to ex-VAT (half away from zero, decisions.md)');
      if (c[1219] !== null && c[1220] !== null) eq(h, 1219, { got: c[1219], want: T.ex - c[1220] }, '§7: 1219 − |1220| = 1221');
    } else {
      eq(h, 1219, { got: c[1219], want: linesSum }, `Σ line amounts before the document discount (${why})`);
      eq(h, 1220, { got: c[1220], want: -disc }, 'clarification 5: the document discount is written negative');
    }
    eq(h, 1221, { got: c[1221], want: T.ex }, why);
    eq(h, 1222, { got: c[1222], want: T.vat }, why);
    eq(h, 1223, { got: c[1223], want: T.inc }, why);
    eq(
      h,
      1224,
      { got: c[1224], want: doc.docType === 320 ? wh : 0n },
      doc.docType === 320 ? 'clarification 4: withholding written positive' : 'no withholding on an invoice or credit note',
    );
    if (doc.docType === 330)
      for (const f of [1219, 1221, 1222, 1223] as const)
        if (c[f] !== null && c[f] < 0n)
          bad(h, f, `${tag}: a credit note's amount is negative; §2.4(יב): "a credit tax invoice (330) is written with positive values"`);
  }
  if (c[1220] !== null && c[1220] > 0n)
    bad(h, 1220, `${tag}: a discount written positive; clarification 5: "A discount reduces the document, so it is shown negative"`);
  if (c[1219] !== null && c[1220] !== null && c[1221] !== null && c[1219] - abs(c[1220]) !== c[1221] && !(c[1219] < 0n))
    bad(h, 1221, `${tag}: 1219 − |1220| = ${c[1219] - abs(c[1220])} ≠ 1221 ${c[1221]} (§7)`);
  if (c[1221] !== null && c[1222] !== null && c[1223] !== null && !RECEIPT_TYPES.has(doc.docType) && c[1221] + c[1222] !== c[1223])
    bad(h, 1223, `${tag}: 1221 + 1222 = ${c[1221] + c[1222]} ≠ 1223 ${c[1223]} (§7)`);

  // ---- D110 (§4.4)
  const link = get(h, 1234);
  if (lines.length !== doc.lines.length) bad(h, null, `${tag}: ${lines.length} D110 records, the document has ${doc.lines.length} lines`);
  const base = doc.linkedDocumentId ? byId.get(doc.linkedDocumentId) : undefined;
  if (doc.docType === 330 && !base) bad(h, null, `${tag}: the credit note's original ${doc.linkedDocumentId} is not among the API's documents`);
  let sum1267 = 0n;
  lines.forEach((r, i) => {
    if (get(r, 1254) !== get(h, 1204))
      bad(r, 1254, `${tag}: document number ${JSON.stringify(get(r, 1254))} written differently from C100/1204 ${JSON.stringify(get(h, 1204))} (§2.4(ד))`);
    if (get(r, 1273) !== link) bad(r, 1273, `${tag}: link ${get(r, 1273)} ≠ C100/1234 ${link} (clarification 11)`);
    if (get(r, 1272) !== ymd(doc.documentDate)) bad(r, 1272, `${tag}: document date ${get(r, 1272)}, the document's is ${doc.documentDate}`);
    if (Number(get(r, 1255)) !== i + 1) bad(r, 1255, `${tag}: line number ${get(r, 1255)}, expected ${i + 1}`);
    if (branches && !get(r, 1270).trim()) bad(r, 1270, 'branch id is mandatory when A000/1034 = 1');
    if (!['0', '1', '2', '3'].includes(get(r, 1258))) bad(r, 1258, `${tag}: transaction type ${get(r, 1258)}: 1 service, 2 sale, 3 both (§5.5)`);
    const l = doc.lines[i];
    if (doc.docType === 330 && base) {
      if (Number(get(r, 1256)) !== base.docType)
        bad(r, 1256, `${tag}: base document type ${get(r, 1256)}, the credit note corrects a ${base.docType} (clarification 6)`);
      if (numKeyOf(get(r, 1257)) !== String(base.docNumber))
        bad(r, 1257, `${tag}: base document number ${JSON.stringify(get(r, 1257).trim())}, the original is ${base.docNumber} (clarification 6)`);
    }
    sum1267 += S(r, 1267) ?? 0n;
    if (!l) return;
    // A line converted from another document names it as its base document (decisions.md, D110 1256/1257).
    if (l.source) {
      if (Number(get(r, 1256)) !== l.source.docType)
        bad(r, 1256, `${tag} line ${i + 1}: base document type ${get(r, 1256)}, the line was converted from a ${l.source.docType}`);
      if (numKeyOf(get(r, 1257)) !== String(l.source.docNumber))
        bad(r, 1257, `${tag} line ${i + 1}: base document number ${JSON.stringify(get(r, 1257).trim())}, the line was converted from #${l.source.docNumber}`);
    } else if (doc.docType !== 330 && (Number(get(r, 1256)) !== 0 || get(r, 1257).trim() !== ''))
      bad(r, 1256, `${tag} line ${i + 1}: a base document (${get(r, 1256)} ${get(r, 1257).trim()}) on a line converted from nothing`);
    if (!textMatches(get(r, 1260), l.description))
      bad(r, 1260, `${tag} line ${i + 1}: description ${JSON.stringify(get(r, 1260).trim())}, the API's ${JSON.stringify(l.description)}`);
    if (l.sku && !textMatches(get(r, 1259), l.sku))
      bad(r, 1259, `${tag} line ${i + 1}: SKU ${JSON.stringify(get(r, 1259).trim())}, the API's ${JSON.stringify(l.sku)}`);
    if (l.unit && !textMatches(get(r, 1263), l.unit))
      bad(r, 1263, `${tag} line ${i + 1}: unit ${JSON.stringify(get(r, 1263).trim())}, the API's ${JSON.stringify(l.unit)}`);
    const q = tenThousandthsOf(l.quantity);
    eq(r, 1264, { got: S(r, 1264), want: q }, `quantity ${l.quantity} with 4 implied decimals`);
    const price = w.prices[i];
    const ld = w.lineDiscounts[i];
    if (gross) {
      eq(r, 1265, { got: S(r, 1265), want: toEx(price) }, 'unit price excl. VAT (a gross price brought to ex-VAT, half away from zero)');
      eq(r, 1266, { got: S(r, 1266), want: -toEx(ld) }, 'line discount excl. VAT, negative (clarification 5)');
      eq(r, 1267, { got: S(r, 1267), want: toEx(lineAmounts[i]) }, 'line total excl. VAT (the line amount brought to ex-VAT)');
    } else {
      eq(r, 1265, { got: S(r, 1265), want: price }, 'unit price excl. VAT');
      eq(r, 1266, { got: S(r, 1266), want: -ld }, 'clarification 5: the line discount is written negative');
      eq(r, 1267, { got: S(r, 1267), want: lineAmounts[i] }, '"quantity x unit price excl. VAT less the line discount" (§4.4)');
      const q2 = S(r, 1264);
      const p2 = S(r, 1265);
      const d2 = S(r, 1266);
      const t2 = S(r, 1267);
      if (q2 !== null && p2 !== null && d2 !== null && t2 !== null && divRound(q2 * p2, 10000n) - abs(d2) !== t2)
        bad(r, 1267, `${tag}: 1264 × 1265 − |1266| = ${divRound(q2 * p2, 10000n) - abs(d2)} ≠ 1267 ${t2} (§7)`);
    }
    for (const f of [1264, 1265, 1267]) {
      const v = S(r, f);
      if (v !== null && v < 0n && doc.docType === 330)
        bad(r, f, `${tag}: negative on a credit note; §2.4(יב): a credit tax invoice is written with positive values`);
    }
    if (S(r, 1266) !== null && S(r, 1266)! > 0n) bad(r, 1266, `${tag}: a line discount written positive; clarification 5`);
    if (num(r, 1268) !== rate) bad(r, 1268, `${tag}: VAT rate ${get(r, 1268)}, the document's rate is ${String(rate).padStart(4, '0')} (9(2)v99)`);
  });
  if (lines.length && lines.length === doc.lines.length && c[1219] !== null) {
    if (gross)
      near(h, 1219, { got: c[1219], want: sum1267, tol: BigInt(lines.length) + 1n }, `Σ D110/1267 (§7), rounding of ${lines.length} lines brought to ex-VAT`);
    else eq(h, 1219, { got: c[1219], want: sum1267 }, 'Σ D110/1267 (§7)');
  }

  // ---- D120 (§4.5)
  if (pays.length !== doc.payments.length) bad(h, null, `${tag}: ${pays.length} D120 records, the document has ${doc.payments.length} payments`);
  let sum1312 = 0n;
  pays.forEach((r, i) => {
    if (get(r, 1304) !== get(h, 1204))
      bad(r, 1304, `${tag}: document number ${JSON.stringify(get(r, 1304))} written differently from C100/1204 ${JSON.stringify(get(h, 1204))} (§2.4(ד))`);
    if (get(r, 1323) !== link) bad(r, 1323, `${tag}: link ${get(r, 1323)} ≠ C100/1234 ${link} (clarification 11)`);
    if (get(r, 1322) !== ymd(doc.documentDate)) bad(r, 1322, `${tag}: document date ${get(r, 1322)}, the document's is ${doc.documentDate}`);
    if (Number(get(r, 1305)) !== i + 1) bad(r, 1305, `${tag}: line number ${get(r, 1305)}, expected ${i + 1}`);
    if (branches && !get(r, 1320).trim()) bad(r, 1320, 'branch id is mandatory when A000/1034 = 1');
    sum1312 += S(r, 1312) ?? 0n;
    const m = Number(get(r, 1306));
    if (!PAYMENT_METHODS.has(m)) bad(r, 1306, `${tag}: payment method ${get(r, 1306)}: 1–9 (§5.2)`);
    const a = Number(get(r, 1313));
    if (a !== 0 && !ACQUIRERS.has(a)) bad(r, 1313, `${tag}: acquirer ${a}: 1, 2, 3, 4 or 6 (§5.3, there is no 5)`);
    const dt = Number(get(r, 1315));
    if (dt !== 0 && !CARD_DEAL_TYPES.has(dt)) bad(r, 1315, `${tag}: credit deal type ${dt}: 1–5 (§5.4)`);
    const x = doc.payments[i];
    if (!x) return;
    const want = methodCode(x.method);
    if (m !== want) bad(r, 1306, `${tag} payment ${i + 1}: method ${m}, the API's method ${x.method} is ${want} (§5.2)`);
    eq(r, 1312, { got: S(r, 1312), want: w.payments[i] }, `payment ${i + 1}'s amount`);
    const cheque = want === 2;
    const card = want === 3;
    for (const [f, v, label] of [
      [1307, x.bankCode, 'bank'],
      [1308, x.branchCode, 'branch'],
      [1309, x.accountNumber, 'account'],
      [1310, x.checkNumber, 'cheque number'],
    ] as const) {
      const got = num(r, f);
      if (cheque && got !== digitsValue(v))
        bad(r, f, `${tag} payment ${i + 1}: cheque ${label} ${get(r, f)}, the API's ${JSON.stringify(v)} (§4.5: mandatory for a cheque)`);
      if (!cheque && got !== 0n && got !== digitsValue(v))
        bad(r, f, `${tag} payment ${i + 1}: ${label} ${get(r, f)} not from the payment (${JSON.stringify(v)})`);
    }
    if (cheque && num(r, 1310) === 0n) bad(r, 1310, `${tag} payment ${i + 1}: a cheque without its number (§4.5 חמ: cheque only, mandatory)`);
    const due = get(r, 1311);
    if (due !== '00000000' && (!x.dueDate || due !== ymd(x.dueDate))) bad(r, 1311, `${tag} payment ${i + 1}: due date ${due}, the API's ${x.dueDate}`);
    if (card) {
      if (a !== acquirerCode(x.cardCompany))
        bad(r, 1313, `${tag} payment ${i + 1}: acquirer ${a}, ${JSON.stringify(x.cardCompany)} is ${acquirerCode(x.cardCompany)} (§5.3)`);
      if (dt !== dealTypeCode(x.cardTxType))
        bad(r, 1315, `${tag} payment ${i + 1}: deal type ${dt}, ${JSON.stringify(x.cardTxType)} is ${dealTypeCode(x.cardTxType)} (§5.4)`);
      if (x.cardName && !textMatches(get(r, 1314), x.cardName))
        bad(r, 1314, `${tag} payment ${i + 1}: card name ${JSON.stringify(get(r, 1314).trim())}, the API's ${JSON.stringify(x.cardName)}`);
    } else {
      if (a !== 0) bad(r, 1313, `${tag} payment ${i + 1}: an acquirer on a payment that is not by card`);
      if (dt !== 0) bad(r, 1315, `${tag} payment ${i + 1}: a credit deal type on a payment that is not by card`);
    }
  });
  if (pays.length && pays.length === doc.payments.length && c[1223] !== null && c[1224] !== null) {
    const want = doc.docType === 320 ? c[1223] - c[1224] : c[1223];
    if (sum1312 !== want)
      bad(h, 1223, `${tag}: Σ D120/1312 = ${fmtAmount(sum1312)} ≠ ${doc.docType === 320 ? '1223 − 1224' : '1223'} = ${fmtAmount(want)} (§7)`);
  }
  if (doc.docType === 305 || doc.docType === 330) for (const r of pays) bad(r, null, `${tag}: a D120 (receipt line) on a ${doc.docType}`);
}

function numKeyOf(s: string): string {
  const t = s.trimEnd();
  return /^\d+$/.test(t) ? String(BigInt(t)) : t;
}

function fmtAmount(x: bigint): string {
  return (x < 0n ? '-' : '+') + String(abs(x));
}

/** The zip's INI.TXT and BKMVDATA.TXT paths and bytes (for tests that mutate them). */
export function readExportZip(zip: Uint8Array): { dir: string; files: Record<string, Uint8Array> } {
  const files = unzipSync(zip);
  const ini = Object.keys(files).find((n) => n.endsWith('/INI.TXT'))!;
  return { dir: ini.slice(0, -'INI.TXT'.length), files };
}
