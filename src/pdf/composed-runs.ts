// A new word laid out without running fontkit's shaping, when fontkit would do nothing to it but look its glyphs up
// and kern adjacent pairs: numbers, amounts, dates, codes, most Hebrew and Latin words. fontkit plans the script's
// features and runs every lookup over each new word, and a document brings a few dozen (its number, amounts, names).
// Here such a word is its characters' glyphs at their advances plus, for each adjacent pair, what fontkit's layout of
// that pair alone under the word's script changed — the pair's kerning — laid out once per process and cached.
// Exact when every lookup of the features fontkit applies either never starts at these glyphs or is pair
// positioning (which looks at two adjacent glyphs only): `composable` checks that in the font's tables once.
import type { Font, Glyph } from 'fontkit';

/** The features fontkit's default shaper applies left to right (besides fractions, around U+2044 only). */
const DEFAULT_FEATURES = new Set(['rvrn', 'ltra', 'ltrm', 'ccmp', 'locl', 'rlig', 'mark', 'mkmk', 'calt', 'clig', 'liga', 'rclt', 'curs', 'kern']);
/** The characters tried: printable ASCII, the Hebrew letters, geresh, gershayim, ₪ and common punctuation. */
const CANDIDATES = [
  ...Array.from({ length: 0x7f - 0x20 }, (_, i) => 0x20 + i),
  ...Array.from({ length: 0x5eb - 0x5d0 }, (_, i) => 0x5d0 + i),
  ...[...'׳״₪–—‘’“”•·…×'].map((c) => c.codePointAt(0)!),
];
/** fontkit's script of a text without letters (Unknown: its default script). */
const NO_SCRIPT = 'zzzz';

type Coverage = { version: 1; glyphs: number[] } | { version: 2; rangeRecords: { start: number; end: number }[] };
type ClassDef =
  { version: 1; startGlyph: number; classValueArray: number[] } | { version: 2; classRangeRecord: { start: number; end: number; class: number }[] };
type Lookup = { lookupType: number; flags: { flags: Record<string, boolean> }; subTables: Record<string, unknown>[] };
type LayoutTable = { featureList: { tag: string; feature: { lookupListIndexes: number[] } }[]; lookupList: { toArray(): Lookup[] } };
type Tables = { GSUB?: LayoutTable; GPOS?: LayoutTable; GDEF?: { glyphClassDef?: ClassDef } };
/** A glyph's place as fontkit answers it, in font units, and its run. */
type Position = { xAdvance: number; yAdvance: number; xOffset: number; yOffset: number };
type FontkitRun = { glyphs: Glyph[]; positions: Position[]; script: string };

const covers = (c: Coverage | undefined, glyph: number): boolean =>
  c !== undefined && (c.version === 1 ? c.glyphs.includes(glyph) : c.rangeRecords.some((r) => r.start <= glyph && glyph <= r.end));

function classOf(def: ClassDef | undefined, glyph: number): number {
  if (!def) return 0;
  if (def.version === 1) return def.classValueArray[glyph - def.startGlyph] ?? 0;
  return def.classRangeRecord.find((r) => r.start <= glyph && glyph <= r.end)?.class ?? 0;
}

/**
 * The coverages of a lookup subtable (extensions unwrapped) that fontkit tests the current glyph against before
 * anything else: a lookup whose subtables none of them covers does nothing at that glyph.
 */
function startCoverages(table: Record<string, unknown>): Coverage[] {
  const t = (table.extension as Record<string, unknown> | undefined) ?? table;
  const first = (k: string) => (t[k] as Coverage[] | undefined)?.[0];
  return [t.coverage as Coverage, t.markCoverage as Coverage, t.mark1Coverage as Coverage, first('coverages'), first('inputCoverage')].filter(
    (c): c is Coverage => c !== undefined,
  );
}

/** Pair positioning that skips marks at most: it sees the adjacent glyph of a word without marks. */
const isPairKerning = (lookup: Lookup, tag: 'GSUB' | 'GPOS'): boolean => {
  const type = lookup.lookupType === 9 && tag === 'GPOS' ? (lookup.subTables[0]?.lookupType as number) : lookup.lookupType;
  const { ignoreMarks: _, ...others } = lookup.flags.flags;
  return tag === 'GPOS' && type === 2 && Object.values(others).every((set) => !set);
};

/** The glyphs that a lookup of the default features may start at, pair kerning aside. */
function touchedGlyphs(font: Tables): (glyph: number) => boolean {
  const tested: ((glyph: number) => boolean)[] = [];
  for (const tag of ['GSUB', 'GPOS'] as const) {
    const table = font[tag];
    if (!table) continue;
    const lookups = table.lookupList.toArray();
    for (const { tag: feature, feature: f } of table.featureList) {
      if (!DEFAULT_FEATURES.has(feature)) continue;
      for (const lookup of f.lookupListIndexes.map((i) => lookups[i])) {
        if (isPairKerning(lookup, tag)) continue;
        const all = lookup.subTables.flatMap(startCoverages);
        tested.push((glyph) => all.some((c) => covers(c, glyph)));
      }
    }
  }
  return (glyph) => tested.some((test) => test(glyph));
}

/** The words of one font that can be laid out from their characters. */
export class ComposedRuns {
  /** Characters laid out as their glyph alone, by code unit; with the script of the letters. */
  private readonly glyphs = new Map<number, Glyph>();
  private readonly scripts = new Map<number, string>();
  /**
   * By script and pair: the change fontkit's layout of the pair makes to the two glyphs' places (null: none;
   * false: fontkit substitutes in it). At most (characters × characters × scripts) entries.
   */
  private readonly pairs = new Map<string, number[] | null | false>();

  constructor(private readonly font: Font) {
    const tables = font as unknown as Tables;
    const touched = touchedGlyphs(tables);
    for (const code of CANDIDATES) {
      const glyph = font.glyphForCodePoint(code);
      // Not a mark (fontkit zeroes marks' advances; kerning skips them) and never the start of a lookup.
      if (glyph.id === 0 || classOf(tables.GDEF?.glyphClassDef, glyph.id) === 3 || touched(glyph.id)) continue;
      const alone = this.layout(String.fromCharCode(code));
      if (alone.glyphs.length !== 1 || alone.glyphs[0].id !== glyph.id) continue;
      this.glyphs.set(code, glyph);
      if (alone.script !== NO_SCRIPT) this.scripts.set(code, alone.script);
    }
  }

  private layout(text: string, script?: string): FontkitRun {
    return this.font.layout(text, undefined, script, undefined, 'ltr') as unknown as FontkitRun;
  }

  /** The run fontkit's layout answers for `text`, or null when it has a character this cannot vouch for. */
  run(text: string): { glyphs: Glyph[]; positions: Position[] } | null {
    const glyphs: Glyph[] = [];
    let script = NO_SCRIPT;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const glyph = this.glyphs.get(code);
      if (glyph === undefined) return null;
      glyphs.push(glyph);
      // fontkit's script of a text: that of its first letter.
      if (script === NO_SCRIPT) script = this.scripts.get(code) ?? NO_SCRIPT;
    }
    const positions = glyphs.map((g) => ({ xAdvance: g.advanceWidth, yAdvance: 0, xOffset: 0, yOffset: 0 }));
    for (let i = 0; i + 1 < text.length; i++) {
      const change = this.pair(script, text.slice(i, i + 2), glyphs[i], glyphs[i + 1]);
      if (change === false) return null;
      if (change === null) continue;
      for (const [k, key] of (['xAdvance', 'yAdvance', 'xOffset', 'yOffset'] as const).entries()) {
        positions[i][key] += change[k];
        positions[i + 1][key] += change[4 + k];
      }
    }
    return { glyphs, positions };
  }

  /** The pair's change to its glyphs' places under `script` (null: none); false when fontkit substitutes in it. */
  private pair(script: string, text: string, first: Glyph, second: Glyph): number[] | null | false {
    const key = `${script}${text}`;
    let change = this.pairs.get(key);
    if (change === undefined) {
      const run = this.layout(text, script);
      const [a, b] = run.positions;
      if (run.glyphs.length !== 2 || run.glyphs[0].id !== first.id || run.glyphs[1].id !== second.id) change = false;
      else {
        const moved = [a.xAdvance - first.advanceWidth, a.yAdvance, a.xOffset, a.yOffset, b.xAdvance - second.advanceWidth, b.yAdvance, b.xOffset, b.yOffset];
        change = moved.some((n) => n !== 0) ? moved : null;
      }
      this.pairs.set(key, change);
    }
    return change;
  }
}
