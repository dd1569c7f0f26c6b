/**
 * Text for OPENFRMT fields: the files declare ISO-8859-8-i (A000/1029 = 1), logical order, one byte
 * per character. Text is first folded into that repertoire (printable ASCII and the 27 Hebrew
 * letters), then encoded byte by byte. Encoding refuses anything outside the repertoire instead of
 * silently writing `?` (what iconv-lite would do), so a column can never shift.
 */

const REPLACEMENTS: Record<string, string> = {
  '\u05F4': '"', // gershayim ״
  '\u05F3': "'", // geresh ׳
  '\u05BE': '-', // maqaf ־
  '\u2013': '-',
  '\u2014': '-',
  '\u2012': '-',
  '\u2010': '-',
  '\u2011': '-',
  '\u2212': '-',
  '\u201C': '"',
  '\u201D': '"',
  '\u201E': '"',
  '\u2018': "'",
  '\u2019': "'",
  '\u201A': "'",
  '\u20AA': 'ש"ח', // ₪ (not in ISO-8859-8)
  '\u00A0': ' ',
  '\u2007': ' ',
  '\u202F': ' ',
  '\t': ' ',
  '\r': ' ',
  '\n': ' ',
  '\u2026': '...',
};

function isHebrewLetter(code: number): boolean {
  return code >= 0x05d0 && code <= 0x05ea;
}

/** Marks with no visible width: niqqud/cantillation and bidi controls are dropped. */
function isDropped(code: number): boolean {
  return (
    (code >= 0x0591 && code <= 0x05c7 && code !== 0x05be) ||
    code === 0x200e ||
    code === 0x200f ||
    code === 0x200b ||
    code === 0x200c ||
    code === 0x200d ||
    code === 0xfeff ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/** Text already inside the repertoire (most of it): folding would give it back unchanged (NFC leaves it as is). */
const IN_REPERTOIRE = /^[\x20-\x7e\u05d0-\u05ea]*$/;

/** Folds any text into the ISO-8859-8 printable repertoire; unknown characters become `?`. */
export function foldToRepertoire(text: string): string {
  if (IN_REPERTOIRE.test(text)) return text;
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const code = ch.codePointAt(0)!;
    if (code >= 0x20 && code <= 0x7e) out += ch;
    else if (isHebrewLetter(code)) out += ch;
    else if (ch in REPLACEMENTS) out += REPLACEMENTS[ch];
    else if (isDropped(code)) continue;
    else {
      // Latin letters with accents fold to their base letter (é → e); anything else is unknown.
      const base = ch.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
      out += base.length === 1 && base.charCodeAt(0) >= 0x20 && base.charCodeAt(0) <= 0x7e ? base : '?';
    }
  }
  return out;
}

/** Encodes text already inside the repertoire: ASCII as is, א..ת → 0xE0..0xFA. */
export function encodeIso88598(text: string): Buffer {
  const out = Buffer.allocUnsafe(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code <= 0x7e) out[i] = code;
    else if (code === 0x0d || code === 0x0a) out[i] = code;
    else if (isHebrewLetter(code)) out[i] = code - 0x05d0 + 0xe0;
    else throw new Error(`character U+${code.toString(16).padStart(4, '0')} is outside ISO-8859-8 at offset ${i}`);
  }
  return out;
}
