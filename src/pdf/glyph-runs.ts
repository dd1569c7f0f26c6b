// Words laid out once per process and font, kept with what drawing them needs: their width as pdfkit measures
// it and their glyphs as hex ids of the process's font subset (shared-font.ts), so a line is measured by adding
// numbers and drawn by joining strings into one `TJ` operator. pdfkit would lay each word out again, encode its
// glyphs and format its positions on every draw. The output is pdfkit's own, byte for byte (`_fragment`).
import type { Font, Glyph } from 'fontkit';
import { ComposedRuns } from './composed-runs.ts';

type Position = { xAdvance: number; yAdvance: number; xOffset: number; yOffset: number; advanceWidth: number };
/** A glyph's place as fontkit lays it out, in font units. */
type FontPosition = { xAdvance: number; yAdvance: number; xOffset: number; yOffset: number };
/** A laid-out word as pdfkit's EmbeddedFont.layoutRun answers it: positions in thousandths of the font size. */
interface Run {
  glyphs: Glyph[];
  positions: Position[];
  readonly advanceWidth: number;
}
/** The parts of the document's pdfkit font that drawing registers glyphs with (its subset is the process's). */
export interface SubsetFont {
  subset: { includeGlyph(id: number): number };
  widths: (number | null)[];
  unicode: number[][];
  scale: number;
}

/**
 * A word: up to and including a space or a tab, as pdfkit splits text. Kept small (a process keeps tens of
 * thousands): its glyphs, its advance and each glyph's kerning (advance less width, in thousandths of the size).
 * `pieces`: the TJ elements of its glyphs, hex ids run together up to a glyph whose advance differs from its width
 * (kerning), then that glyph's adjustment; a trailing run has no adjustment. Built at first draw, which is when
 * pdfkit adds glyphs to the subset.
 */
interface Word {
  glyphs: Glyph[];
  kerns: number[];
  advance: number;
  /** Some glyph sits off its place (combining marks): pdfkit draws such a line with its own positioning. */
  offset: boolean;
  pieces: { hex: string; kern: string | null }[] | null;
}

const WORDS = 50_000;
const LINES = 20_000;

/** pdfkit's number formatting in content streams (PDFObject.number). */
export const pdfNumber = (n: number): string => String(Math.round(n * 1e6) / 1e6);

/** Calls `each` with the words of `text` in order, as pdfkit's EmbeddedFont.layout splits it. */
function forEachWord(text: string, each: (word: string) => void): void {
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9) {
      each(text.slice(last, i + 1));
      last = i + 1;
    }
  }
  if (last < text.length) each(text.slice(last));
}

/** The words of one font (bounded; cleared when full, like the lines). */
export class GlyphRuns {
  private readonly words = new Map<string, Word>();
  /** Words laid out for pdfkit's text path (run()). */
  private readonly runs = new Map<string, Run>();
  /** A line's TJ operator, or null when pdfkit must draw it. Labels and headings repeat on every document. */
  private readonly lines = new Map<string, string | null>();
  /** A text's advance (the sum of its words'): measured several times a document, the same labels in every one. */
  private readonly advances = new Map<string, number>();
  private readonly scale: number;
  private readonly composed: ComposedRuns;

  constructor(private readonly font: Font) {
    this.scale = 1000 / font.unitsPerEm;
    this.composed = new ComposedRuns(font);
  }

  /** fontkit's layout of a new word, left to right (from its characters when composed-runs.ts can vouch for it), in font units. */
  private layout(text: string): { glyphs: Glyph[]; positions: FontPosition[] } {
    return (
      this.composed.run(text) ?? (this.font.layout(text, undefined, undefined, undefined, 'ltr') as unknown as { glyphs: Glyph[]; positions: FontPosition[] })
    );
  }

  /**
   * pdfkit's layoutRun: the glyphs strictly left to right (the text is in visual order already), in its units.
   * Only pdfkit's own text path asks (an underlined line: a business's website, on every one of its documents).
   */
  run(text: string): Run {
    let run = this.runs.get(text);
    if (run === undefined) {
      if (this.runs.size >= LINES) this.runs.clear();
      this.runs.set(text, (run = this.scaledRun(text)));
    }
    return run;
  }

  private scaledRun(text: string): Run {
    const run = this.layout(text);
    const positions = run.positions.map((p, i) => ({
      xAdvance: p.xAdvance * this.scale,
      yAdvance: p.yAdvance * this.scale,
      xOffset: p.xOffset * this.scale,
      yOffset: p.yOffset * this.scale,
      advanceWidth: run.glyphs[i].advanceWidth * this.scale,
    }));
    let advanceWidth = 0;
    for (const position of positions) advanceWidth += position.xAdvance;
    return { glyphs: run.glyphs, positions, advanceWidth };
  }

  private word(text: string): Word {
    let word = this.words.get(text);
    if (word === undefined) {
      if (this.words.size >= WORDS) this.words.clear();
      const { glyphs, positions } = this.layout(text);
      const kerns = new Array<number>(glyphs.length);
      let advance = 0;
      let offset = false;
      for (let i = 0; i < glyphs.length; i++) {
        const p = positions[i];
        // Summed in order, as fontkit's run sums its advances.
        const xAdvance = p.xAdvance * this.scale;
        advance += xAdvance;
        kerns[i] = xAdvance - glyphs[i].advanceWidth * this.scale;
        if (p.xOffset * this.scale || p.yOffset * this.scale) offset = true;
      }
      word = { glyphs, kerns, advance, offset, pieces: null };
      this.words.set(text, word);
    }
    return word;
  }

  /** The width of `text` at `size` points, the same number pdfkit's widthOfString answers. */
  width(text: string, size: number): number {
    let advance = this.advances.get(text);
    if (advance === undefined) {
      let sum = 0;
      forEachWord(text, (word) => (sum += this.word(word).advance));
      if (this.advances.size >= LINES) this.advances.clear();
      this.advances.set(text, (advance = sum));
    }
    return ((advance * (size / 1000) + 0) * 100) / 100;
  }

  /** The `TJ` operator that draws `text` (one line, visual order), or null when a glyph sits off its place. */
  tj(text: string, font: SubsetFont): string | null {
    let op = this.lines.get(text);
    if (op !== undefined) return op;
    const elements: string[] = [];
    let open = '';
    let offset = false;
    forEachWord(text, (text) => {
      const word = this.word(text);
      offset ||= word.offset;
      for (const piece of (word.pieces ??= this.encode(word, font))) {
        open += piece.hex;
        if (piece.kern !== null) {
          elements.push(`<${open}> ${piece.kern}`);
          open = '';
        }
      }
    });
    if (open !== '') elements.push(`<${open}> 0`);
    op = offset || elements.length === 0 ? null : `[${elements.join(' ')}] TJ`;
    if (this.lines.size >= LINES) this.lines.clear();
    this.lines.set(text, op);
    return op;
  }

  /** pdfkit's EmbeddedFont.encode: each glyph into the subset (with its width and text), as hex. */
  private encode(word: Word, font: SubsetFont): NonNullable<Word['pieces']> {
    const pieces: NonNullable<Word['pieces']> = [];
    let hex = '';
    word.glyphs.forEach((glyph, i) => {
      const gid = font.subset.includeGlyph(glyph.id);
      hex += `0000${gid.toString(16)}`.slice(-4);
      font.widths[gid] ??= glyph.advanceWidth * font.scale;
      font.unicode[gid] ??= glyph.codePoints;
      const kern = word.kerns[i];
      if (kern !== 0) {
        pieces.push({ hex, kern: pdfNumber(-kern) });
        hex = '';
      }
    });
    if (hex !== '') pieces.push({ hex, kern: null });
    return pieces;
  }
}

const perFont = new WeakMap<Font, GlyphRuns>();

/** The process's words of `font` (a parsed font of fonts.ts). */
export function glyphRunsOf(font: Font): GlyphRuns {
  let runs = perFont.get(font);
  if (!runs) perFont.set(font, (runs = new GlyphRuns(font)));
  return runs;
}
