import { describe, expect, it } from 'vitest';
import bidiModule from 'bidi-js';
import type { Bidi } from 'bidi-js';
import { hasRtl, visualOrder, wrapLogical } from '../../src/pdf/bidi.ts';

const bidiFactory = ((bidiModule as unknown as { default?: () => Bidi }).default ?? bidiModule) as unknown as () => Bidi;

const reverse = (s: string) => [...s].reverse().join('');

describe('visualOrder (logical → left-to-right visual order)', () => {
  it('reverses a pure Hebrew line', () => {
    expect(visualOrder('שלום עולם')).toBe(reverse('שלום עולם'));
  });

  it('keeps digits and Latin runs left to right inside Hebrew', () => {
    const v = visualOrder('חשבונית 1001 עבור ACME');
    expect(v).toBe(`ACME ${reverse('עבור')} 1001 ${reverse('חשבונית')}`);
  });

  it('keeps amounts, dates and phone numbers intact', () => {
    expect(visualOrder('סה"כ 1,234.56')).toBe(`1,234.56 ${reverse('סה"כ')}`);
    expect(visualOrder('תאריך: 01/03/2026')).toBe(`01/03/2026 :${reverse('תאריך')}`);
    expect(visualOrder('טלפון: 03-1234567')).toContain('03-1234567');
  });

  it('mirrors brackets inside right-to-left runs', () => {
    // Logical "(א)" reads as an opening bracket on the right: visually the glyph order is "(א)" mirrored.
    const v = visualOrder('קפה (חלב)');
    expect(v).toBe(`(${reverse('חלב')}) ${reverse('קפה')}`);
  });

  it('leaves LTR base text untouched', () => {
    expect(visualOrder('₪1,234.56', 'ltr')).toBe('₪1,234.56');
    expect(visualOrder('-₪3.00', 'ltr')).toBe('-₪3.00');
    expect(visualOrder('office@cafe.example', 'ltr')).toBe('office@cafe.example');
  });

  it('answers what the bidi algorithm answers for left-to-right text it does not run on', () => {
    const bidi = bidiFactory();
    // Characters a left-to-right line is taken as it is for: Latin, digits, brackets, signs, quotes, dashes.
    const repertoire = [...'aZ09 .,:;-+/()[]{}<>@#%&*"\'!?_=~$€₪£¥–—‘’“”•…×éßΩЖ\tÅ'];
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let n = 0; n < 2000; n++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 24) }, () => repertoire[Math.floor(random() * repertoire.length)]).join('');
      expect(visualOrder(text, 'ltr')).toBe(bidi.getReorderedString(text, bidi.getEmbeddingLevels(text, 'ltr')));
    }
  });

  it('answers empty for empty', () => {
    expect(visualOrder('')).toBe('');
  });

  it('detects right-to-left text', () => {
    expect(hasRtl('abc 123')).toBe(false);
    expect(hasRtl('abc ש')).toBe(true);
  });
});

describe('wrapLogical', () => {
  const measure = (s: string) => s.length; // one unit per character

  it('breaks at spaces within the width', () => {
    expect(wrapLogical('אחת שתיים שלוש ארבע', 10, measure)).toEqual(['אחת שתיים', 'שלוש ארבע']);
  });

  it('cuts a word longer than the line', () => {
    expect(wrapLogical('אבגדהוזחטיכל', 5, measure)).toEqual(['אבגדה', 'וזחטי', 'כל']);
  });

  it('keeps explicit newlines and empty paragraphs', () => {
    expect(wrapLogical('א\n\nב', 10, measure)).toEqual(['א', '', 'ב']);
  });

  it('keeps the logical order of the words across lines (first words on the first line)', () => {
    const lines = wrapLogical('שורה ראשונה ושורה שנייה', 12, measure);
    expect(lines[0].startsWith('שורה')).toBe(true);
    expect(lines.join(' ')).toBe('שורה ראשונה ושורה שנייה');
  });
});
