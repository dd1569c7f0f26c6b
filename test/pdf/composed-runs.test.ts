// A word laid out from its characters (composed-runs.ts) is what fontkit's layout answers for it: the same glyphs
// and the same places, field by field, for both fonts, on words made to hit kerning pairs and mixed scripts.
import { describe, expect, it } from 'vitest';
import type { Font } from 'fontkit';
import { hebrewFonts } from '../../src/pdf/fonts.ts';
import { ComposedRuns } from '../../src/pdf/composed-runs.ts';

type Run = { glyphs: { id: number }[]; positions: Record<string, number>[] };
const fontkitRun = (font: Font, text: string) => font.layout(text, undefined, undefined, undefined, 'ltr') as unknown as Run;
const summary = (run: Run) => ({ glyphs: run.glyphs.map((g) => g.id), positions: run.positions.map((p) => ({ ...p })) });

/** Words of invoices, kerning pairs (AV, To., L') and mixed scripts. */
const WORDS = [
  '1,234.56',
  '₪1,000',
  '01/03/2026',
  '(Client',
  'Tech)',
  'AV',
  'To.',
  "L'",
  'W.A.V.',
  'קפה',
  'אבגAV',
  'Alpha',
  'office@cafe.example',
  '"מ',
  'x-1',
];

/** Random words over every character composed-runs.ts vouches for (a fixed seed: the same words every run). */
function randomWords(chars: string[], count: number): string[] {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(next() * 10) }, () => chars[Math.floor(next() * chars.length)]).join(''));
}

describe('words laid out from their characters', () => {
  for (const [name, font] of Object.entries(hebrewFonts())) {
    it(`${name}: the same glyphs and places as fontkit's layout`, () => {
      const composed = new ComposedRuns(font);
      const chars = [...'0123456789.,-/:()₪ AVTo\'Wacehlnopt@אבגדהוזחטיכלמנסעפצקרשת"'].filter((c) => composed.run(c) !== null);
      // Digits, punctuation, Hebrew and (most) Latin letters are vouched for; f and i are not (ligatures, ccmp).
      expect(chars.length).toBeGreaterThan(50);
      expect(composed.run('fi')).toBeNull();
      let checked = 0;
      for (const word of [...WORDS, ...randomWords(chars, 5000)]) {
        const run = composed.run(word);
        if (run === null) continue;
        checked++;
        expect(summary(run as Run), word).toEqual(summary(fontkitRun(font, word)));
      }
      expect(checked).toBeGreaterThan(5000);
    });
  }
});
