import { hebrewFonts } from './fonts.ts';
import { visualOrder, wrapLogical } from './bidi.ts';
import { glyphRunsOf, pdfNumber, type GlyphRuns } from './glyph-runs.ts';
import type { Variant } from './model.ts';
import { shareEmbedding, type EmbeddedFont } from './shared-font.ts';
import { deflateContent, rawStreamObject, spliceObjects, stringObject } from './splice.ts';
import { CollectedDocument, joinChunks } from './collected-document.ts';
import { CONTENT, PAGE, type Rect, type RuleStyle, type TextBox, type TextStyle } from './page-geometry.ts';

/** pdfkit's embedded font of one document (the parts the writer uses); its subset is the process's (shared-font.ts). */
type DocumentFont = EmbeddedFont & { ascender: number; layoutCached(text: string): unknown; ref(): unknown; __pinkasShared?: boolean };
type Ref = { id: number; data: Record<string, unknown>; buffer: Uint8Array[]; write(chunk: string | Uint8Array): void; end(): void };
type Page = {
  content: Ref | { write(chunk: string | Uint8Array): void };
  dictionary: { data: { Contents: unknown } };
  fonts: Record<string, unknown>;
  height: number;
};
/** The pdfkit internals the writer reaches into (pinned by the lock file). */
interface Internals {
  page: Page;
  _font: DocumentFont;
  _fontSize: number;
  _fillColor: unknown;
  _offset: number;
  _offsets: number[];
  _info: { data: { Subject?: Ref } };
  _pageBuffer: Page[];
  _write(data: string | Uint8Array): void;
  push(chunk: unknown): boolean;
  _finalize(): void;
  _normalizeColor(color: string): number[] | null;
  _getColorSpace(color: number[]): string;
  ref(): Ref;
}

/**
 * What differs between the variants on one page (the print mark): the first variant's drawing goes into a
 * stream of its own that the page lists after its content; the others' drawing is kept aside, to replace that
 * stream in their files.
 */
interface VariantLayer {
  ref: Ref;
  others: string[][];
}

/**
 * A stream's content kept as text until the document ends: pdfkit turns every operator into bytes as it is
 * written, and a page is a few hundred of them.
 */
const textOf = new WeakMap<Ref, string[]>();

function collectAsText(ref: Ref): void {
  const parts = ref.buffer.map((bytes) => Buffer.from(bytes).toString('latin1'));
  ref.buffer = [];
  // pdfkit's write sets /Length first (its value comes at the end): the dictionary keeps pdfkit's key order.
  ref.data.Length ??= 0;
  ref.write = (chunk) => parts.push(typeof chunk === 'string' ? `${chunk}\n` : Buffer.from(chunk).toString('latin1'));
  textOf.set(ref, parts);
}

/** A colour's operators as pdfkit writes them (fillColor / strokeColor), by colour: fill and stroke. */
const colorOps = [new Map<string, string | null>(), new Map<string, string | null>()];

/**
 * A paragraph as drawn: its lines wrapped, in visual order, with their widths. By base direction, then by font,
 * size, box width and text: the labels and headings of a page repeat on every document. Bounded.
 */
type Paragraph = readonly { visual: string; width: number }[];
const paragraphs = { rtl: new Map<string, Paragraph>(), ltr: new Map<string, Paragraph>() };
/** Texts wrapped, by font, size, box width and text (bounded). */
const wrapped = new Map<string, string[]>();
const PARAGRAPHS = 20_000;

/** `map` with `value` set under `key`, emptied first when full. */
function remember<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= PARAGRAPHS) map.clear();
  map.set(key, value);
  return value;
}

/** What was written to a stream reference as bytes, deflated or not (pdfkit then writes them as they are). */
function closeRef(ref: Ref, deflate: boolean): void {
  const text = textOf.get(ref);
  if (text) ref.buffer = text.length === 0 ? [] : [Buffer.from(text.join(''), 'latin1')];
  if (ref.buffer.length === 0 || !deflate) return;
  ref.buffer = [deflateContent(Buffer.concat(ref.buffer))];
  ref.data.Filter = 'FlateDecode';
}

/**
 * A thin layer over pdfkit that draws logical text (as stored) right-to-left correctly:
 * wrap the logical text, reorder each line to visual order with bidi-js, and lay the glyphs out strictly
 * left to right (glyph-runs.ts; fontkit would reverse Hebrew runs a second time). Text goes into the page
 * as pdfkit's text() would write it, from the words' cached glyph runs; pdfkit keeps the document's
 * structure, the fonts' embedding, images, links, lines and boxes.
 */
export class PdfWriter {
  readonly doc: PDFKit.PDFDocument;
  y: number = PAGE.margin;
  private readonly layers = new Map<Page, VariantLayer>();
  /** The font pdfkit has current ('he' or 'he-bold'). */
  private fontName = '';

  /**
   * `variants`: the files this writer makes from one layout (origin and copy differ only where forVariants
   * draws); `subjects` the /Subject of each.
   */
  constructor(
    info: { title: string; author: string; lang?: string },
    private readonly variants: readonly Variant[] = ['draft'],
    private readonly subjects: readonly string[] = [],
  ) {
    const subject = subjects[0];
    this.doc = new CollectedDocument({
      size: 'A4',
      margins: { top: PAGE.margin, bottom: 10, left: PAGE.margin, right: PAGE.margin },
      bufferPages: true,
      autoFirstPage: true,
      info: { Title: info.title, Author: info.author, ...(subject ? { Subject: subject } : {}), Creator: 'pinkas', Producer: 'pinkas' },
      lang: info.lang ?? 'he',
      // No default font: pdfkit would parse Helvetica's metrics for every document, and no page uses it.
      font: null as unknown as string,
      // The writer deflates the page content itself (deflateContent); fonts and images come deflated.
      compress: false,
    });
    const d = this.internals;
    const fonts = hebrewFonts();
    // pdfkit accepts a parsed fontkit font (its typings only list files and bytes).
    this.doc.registerFont('he', fonts.regular as unknown as Buffer);
    this.doc.registerFont('he-bold', fonts.bold as unknown as Buffer);
    collectAsText(d.page.content as Ref);
    this.doc.on('pageAdded', () => collectAsText(d.page.content as Ref));
    this.useFont(false, 10);
  }

  /** Makes the font current; answers its words (measured and drawn without pdfkit's text path). */
  useFont(bold: boolean, size: number): GlyphRuns {
    const d = this.internals;
    const name = bold ? 'he-bold' : 'he';
    if (this.fontName !== name) {
      this.doc.font(name);
      this.fontName = name;
    }
    d._fontSize = size;
    const pdfFont = d._font;
    const runs = glyphRunsOf(pdfFont.font);
    if (!pdfFont.__pinkasShared) {
      // pdfkit's own text path (underlined lines) finds the words laid out here.
      pdfFont.layoutCached = (text: string) => runs.run(text);
      shareEmbedding(pdfFont);
      pdfFont.__pinkasShared = true;
    }
    return runs;
  }

  private get internals(): Internals {
    return this.doc as unknown as Internals;
  }

  /**
   * Draws what differs between the variants (the print mark and what follows it on the page) once per variant,
   * into the current page. `draw` answers the height it used, which must not depend on the variant: the rest
   * of the page is laid out once for all of them.
   */
  forVariants(draw: (variant: Variant) => number): number {
    if (this.variants.length === 1) return draw(this.variants[0]);
    const page = this.internals.page;
    let layer = this.layers.get(page);
    if (!layer) {
      layer = { ref: this.internals.ref(), others: this.variants.slice(1).map(() => []) };
      collectAsText(layer.ref);
      page.dictionary.data.Contents = [page.content, layer.ref];
      layer.ref.write('q');
      this.layers.set(page, layer);
    }
    const content = page.content;
    const heights = this.variants.map((variant, i) => {
      const other = i === 0 ? null : layer.others[i - 1];
      page.content = other
        ? { write: (chunk: string | Uint8Array) => other.push(typeof chunk === 'string' ? `${chunk}\n` : Buffer.from(chunk).toString('latin1')) }
        : layer.ref;
      try {
        return draw(variant);
      } finally {
        page.content = content;
      }
    });
    if (heights.some((h) => h !== heights[0])) throw new Error(`the variants ${this.variants.join(', ')} laid out differently`);
    return heights[0];
  }

  width(text: string, style: TextStyle = {}): number {
    const size = style.size ?? 10;
    return this.useFont(style.bold ?? false, size).width(text, size);
  }

  lineHeight(size = 10): number {
    return size * 1.4;
  }

  /** Lines of `text` in a box of `maxWidth` (sections measure, then draw): the array is shared, never to be changed. */
  wrap(text: string, maxWidth: number, style: TextStyle = {}): readonly string[] {
    const bold = style.bold ?? false;
    const size = style.size ?? 10;
    return this.wrapKeyed({ runs: this.useFont(bold, size), size }, `${bold ? 'b' : ''}${size}|${maxWidth}|${text}`, text, maxWidth);
  }

  private wrapKeyed({ runs, size }: { runs: GlyphRuns; size: number }, key: string, text: string, maxWidth: number): string[] {
    const lines = wrapped.get(key);
    if (lines) return lines;
    const measure = (s: string) => runs.width(s, size);
    // Most texts are one line as written: one measure instead of one per word.
    const plain = !/[\r\n]| {2}|^ | $/.test(text);
    return remember(wrapped, key, plain && measure(text) <= maxWidth ? [text] : wrapLogical(text, maxWidth, measure));
  }

  /**
   * Draws logical text inside the box [x, x + w] starting at top `y`, wrapping as needed.
   * Answers the height used.
   */
  text(text: string, { x, w, y }: TextBox, style: TextStyle = {}): number {
    const size = style.size ?? 10;
    const bold = style.bold ?? false;
    const dir = style.dir ?? 'rtl';
    const runs = this.useFont(bold, size);
    const key = `${bold ? 'b' : ''}${size}|${w}|${text}`;
    const byKey = paragraphs[dir];
    const lines =
      byKey.get(key) ??
      remember(
        byKey,
        key,
        this.wrapKeyed({ runs, size }, key, text, w).map((line) => {
          const visual = visualOrder(line, dir);
          return { visual, width: runs.width(visual, size) };
        }),
      );
    const lh = this.lineHeight(size);
    this.fillColor(style.color ?? '#222222');
    const align = style.align ?? (style.dir === 'ltr' ? 'left' : 'right');
    const underline = style.underline ?? false;
    for (let i = 0; i < lines.length; i++) {
      const { visual, width: lw } = lines[i];
      const lx = align === 'right' ? x + w - lw : align === 'center' ? x + (w - lw) / 2 : x;
      const ly = y + i * lh;
      this.drawLine(runs, visual, { x: lx, y: ly }, underline);
      if (style.link) this.doc.link(lx, ly, lw, lh, style.link);
    }
    return lines.length * lh;
  }

  /** One line in visual order with its top-left at (x, y): what pdfkit's text() writes, from the words' glyph runs. */
  private drawLine(runs: GlyphRuns, visual: string, { x, y }: { x: number; y: number }, underline: boolean): void {
    const d = this.internals;
    const font = d._font;
    const tj = underline || visual === '' ? null : runs.tj(visual, font);
    if (tj === null) {
      this.doc.text(visual, x, y, { lineBreak: false, underline });
      return;
    }
    const page = d.page;
    const size = d._fontSize;
    if (page.fonts[font.id] == null) page.fonts[font.id] = font.ref();
    const top = page.height - y - (font.ascender / 1000) * size;
    page.content.write(
      `q\n1 0 0 -1 0 ${pdfNumber(page.height)} cm\nBT\n1 0 0 1 ${pdfNumber(x)} ${pdfNumber(top)} Tm\n/${font.id} ${pdfNumber(size)} Tf\n${tj}\nET\nQ`,
    );
  }

  /** pdfkit's fillColor for a colour string, its operators formatted once per colour. */
  private fillColor(color: string): void {
    const op = this.colorOp(color, false);
    if (op !== null) this.internals.page.content.write(op);
    this.internals._fillColor = [color, undefined];
  }

  /** The operators pdfkit's fillColor (or strokeColor) writes for `color`; null when it writes none. */
  private colorOp(color: string, stroke: boolean): string | null {
    const ops = colorOps[stroke ? 1 : 0];
    let op = ops.get(color);
    if (op === undefined) {
      const d = this.internals;
      const normalized = d._normalizeColor(color);
      op = normalized ? `/${d._getColorSpace(normalized)} ${stroke ? 'CS' : 'cs'}\n${normalized.join(' ')} ${stroke ? 'SCN' : 'scn'}` : null;
      ops.set(color, op);
    }
    return op;
  }

  /** Height `text` would take in a box of width w. */
  measure(text: string, w: number, style: TextStyle = {}): number {
    return this.wrap(text, w, style).length * this.lineHeight(style.size ?? 10);
  }

  // Boxes and lines: the operators pdfkit's save().rect().fill().restore() and the like write, written at once.

  rect({ x, y, w, h }: Rect, fill: string): void {
    const op = this.colorOp(fill, false);
    const n = pdfNumber;
    this.internals.page.content.write(`q\n${n(x)} ${n(y)} ${n(w)} ${n(h)} re\n${op === null ? '' : `${op}\n`}f\nQ`);
    this.internals._fillColor = [fill, undefined];
  }

  box({ x, y, w, h }: Rect, stroke: string, lineWidth = 0.8): void {
    const op = this.colorOp(stroke, true);
    const n = pdfNumber;
    this.internals.page.content.write(`q\n${n(lineWidth)} w\n${n(x)} ${n(y)} ${n(w)} ${n(h)} re\n${op === null ? '' : `${op}\n`}S\nQ`);
  }

  /** A horizontal line at `y`, from `x1` to `x2` (the content's width unless given). */
  rule(y: number, { color = '#BBBBBB', x1 = CONTENT.left, x2 = CONTENT.right, lineWidth = 0.6 }: RuleStyle = {}): void {
    const op = this.colorOp(color, true);
    const n = pdfNumber;
    this.internals.page.content.write(`q\n${n(lineWidth)} w\n${n(x1)} ${n(y)} m\n${n(x2)} ${n(y)} l\n${op === null ? '' : `${op}\n`}S\nQ`);
  }

  /** Starts a new page when `h` more points do not fit above the footer; answers whether it did. */
  ensure(h: number): boolean {
    if (this.y + h <= PAGE.footerTop - 8) return false;
    this.doc.addPage();
    this.y = PAGE.margin;
    return true;
  }

  /** Ends the document: one file per variant, in the order given. */
  finish(): Promise<Buffer[]> {
    const d = this.internals;
    for (const layer of this.layers.values()) layer.ref.write('Q');
    for (const page of d._pageBuffer) closeRef(page.content as Ref, true);
    // The variants' marks (~1 KB a page) go uncompressed: deflating them took two more zlib streams a pair,
    // whose setup costs more than their bytes (+0.6 KB a file).
    for (const layer of this.layers.values()) {
      closeRef(layer.ref, false);
      layer.ref.end();
    }
    return new Promise((resolve, reject) => {
      const finalize = d._finalize.bind(d);
      // pdfkit ends asynchronously when an image is still being decoded; the cross-reference table comes last.
      d._finalize = () => {
        try {
          finalize();
          resolve(this.files(joinChunks((this.doc as CollectedDocument).chunks, d._offset)));
        } catch (err) {
          reject(err as Error);
        }
      };
      this.doc.end();
    });
  }

  private files(first: Buffer): Buffer[] {
    const d = this.internals;
    return [
      first,
      ...this.variants.slice(1).map((_, i) => {
        const replaced = new Map<number, Buffer>();
        for (const layer of this.layers.values()) {
          replaced.set(layer.ref.id, rawStreamObject(layer.ref.id, Buffer.from(['q\n', ...layer.others[i], 'Q\n'].join(''), 'latin1')));
        }
        const subject = d._info.data.Subject;
        if (subject && this.subjects[i + 1] !== undefined) replaced.set(subject.id, stringObject(subject.id, this.subjects[i + 1]));
        return spliceObjects(first, d._offsets, replaced);
      }),
    ];
  }
}
