import bidiModule from 'bidi-js';
import type { Bidi } from 'bidi-js';

// bidi-js is CommonJS typed as an ES default export: at runtime the default import is the factory.
const bidiFactory = ((bidiModule as unknown as { default?: () => Bidi }).default ?? bidiModule) as unknown as () => Bidi;
// One bidi instance for the process: the factory builds its lookup tables once.
const bidi = bidiFactory();

export type BaseDirection = 'rtl' | 'ltr';

/**
 * Reorders one line of logical text (as typed: Hebrew first-to-last) into visual order, left to
 * right, with mirrored brackets swapped inside right-to-left runs. pdfkit has no bidi of its own,
 * so it must receive exactly what should appear from left to right.
 */
export function visualOrder(logical: string, base: BaseDirection = 'rtl'): string {
  if (logical === '' || (base === 'ltr' && LEFT_TO_RIGHT_ONLY.test(logical))) return logical;
  const key = base === 'rtl' ? `r${logical}` : `l${logical}`;
  let visual = reordered.get(key);
  if (visual === undefined) {
    if (reordered.size >= REORDERED_LINES) reordered.clear();
    visual = bidi.getReorderedString(logical, bidi.getEmbeddingLevels(logical, base));
    reordered.set(key, visual);
  }
  return visual;
}

/**
 * Text that a left-to-right paragraph leaves as it is: no right-to-left letter and no explicit embedding can raise
 * a level above 0 (Latin to Armenian, general punctuation up to U+2027, currency signs). Amounts, dates and codes
 * skip the bidi algorithm.
 */
const LEFT_TO_RIGHT_ONLY = /^[\u0000-\u058F\u2010-\u2027\u20A0-\u20CF]*$/;

/** Lines reordered before: labels, headings and footers repeat on every document. Bounded. */
const REORDERED_LINES = 20_000;
const reordered = new Map<string, string>();

/** True when the text holds any right-to-left character (Hebrew, Arabic). */
export function hasRtl(text: string): boolean {
  return /[\u0590-\u05FF\u0600-\u06FF\uFB1D-\uFB4F]/.test(text);
}

/**
 * Splits logical text into lines no wider than `maxWidth`, breaking at spaces (and inside a word
 * only when the word alone is too wide). Measured on the logical text: the width of a line does not
 * depend on its order. Explicit newlines are kept. Each line is later reordered on its own.
 */
export function wrapLogical(text: string, maxWidth: number, measure: (s: string) => number): string[] {
  const out: string[] = [];
  for (const paragraph of text.replace(/\r\n?/g, '\n').split('\n')) {
    const words = paragraph.split(/ +/).filter((w) => w !== '');
    if (words.length === 0) {
      out.push('');
      continue;
    }
    let line = '';
    for (const word of words) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (measure(candidate) <= maxWidth) {
        line = candidate;
        continue;
      }
      if (line !== '') out.push(line);
      // A single word wider than the line: cut it by characters.
      let rest = word;
      while (measure(rest) > maxWidth && rest.length > 1) {
        let cut = rest.length - 1;
        while (cut > 1 && measure(rest.slice(0, cut)) > maxWidth) cut--;
        out.push(rest.slice(0, cut));
        rest = rest.slice(cut);
      }
      line = rest;
    }
    out.push(line);
  }
  return out;
}
