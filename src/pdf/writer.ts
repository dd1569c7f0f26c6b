import PDFDocument from 'pdfkit';
import { hebrewFonts } from './fonts.ts';
import { visualOrder, wrapLogical, type BaseDirection } from './bidi.ts';
import { glyphRunsOf, pdfNumber, type GlyphRuns } from './glyph-runs.ts';
import type { Variant } from './model.ts';
import { shareEmbedding, type EmbeddedFont } from './shared-font.ts';
import { deflateContent, spliceObjects, streamObject, stringObject } from './splice.ts';

export const PAGE = { width: 595.28, height: 841.89, margin: 40, footerTop: 785 } as const;
export const CONTENT = { left: PAGE.margin, right: PAGE.width - PAGE.margin, width: PAGE.width - 2 * PAGE.margin } as const;

export interface TextStyle {
  size?: number;
  bold?: boolean;
  color?: string;
  /** Base direction of the paragraph; amounts and codes are drawn 'ltr'. */
  dir?: BaseDirection;
  align?: 'right' | 'left' | 'center';
  link?: string | null;
  underline?: boolean;
}

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

/** A fill colour's operators as pdfkit writes them (fillColor), by colour. */
const fillOps = new Map<string, string | null>();

/** Deflates what was written to a stream reference (pdfkit then writes it as it is). */
function deflateRef(ref: Ref): void {
  const text = textOf.get(ref);
  if (text) ref.buffer = text.length === 0 ? [] : [Buffer.from(text.join(''), 'latin1')];
  if (ref.buffer.length === 0) return;
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
  private readonly chunks: Uint8Array[] = [];
  private readonly layers = new Map<Page, VariantLayer>();
  private readonly wrapped = new Map<string, string[]>();
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
    this.doc = new PDFDocument({
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
    // The file is collected as pdfkit writes it (no stream between), with the offsets it records; the header
    // written by the constructor waits in the stream's buffer.
    for (let chunk: Buffer | null; (chunk = this.doc.read() as Buffer | null) !== null;) this.chunks.push(chunk);
    const d = this.internals;
    d._write = (data) => {
      const bytes = typeof data === 'string' ? Buffer.from(`${data}\n`, 'latin1') : data;
      this.chunks.push(bytes);
      d._offset += bytes.length;
    };
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

  /** Lines of `text` in a box of `maxWidth`; measured once per document (sections measure, then draw). */
  wrap(text: string, maxWidth: number, style: TextStyle = {}): string[] {
    const bold = style.bold ?? false;
    const size = style.size ?? 10;
    const runs = this.useFont(bold, size);
    const key = `${bold ? 'b' : ''}${size}|${maxWidth}|${text}`;
    let lines = this.wrapped.get(key);
    if (!lines) {
      const measure = (s: string) => runs.width(s, size);
      // Most texts are one line as written: one measure instead of one per word.
      const plain = !/[\r\n]| {2}|^ | $/.test(text);
      lines = plain && measure(text) <= maxWidth ? [text] : wrapLogical(text, maxWidth, measure);
      this.wrapped.set(key, lines);
    }
    return lines;
  }

  /**
   * Draws logical text inside the box [x, x + w] starting at top `y`, wrapping as needed.
   * Answers the height used.
   */
  text(text: string, x: number, w: number, y: number, style: TextStyle = {}): number {
    const size = style.size ?? 10;
    const lines = this.wrap(text, w, style);
    const lh = this.lineHeight(size);
    const runs = this.useFont(style.bold ?? false, size);
    this.fillColor(style.color ?? '#222222');
    lines.forEach((line, i) => {
      const visual = visualOrder(line, style.dir ?? 'rtl');
      const lw = runs.width(visual, size);
      const align = style.align ?? (style.dir === 'ltr' ? 'left' : 'right');
      const lx = align === 'right' ? x + w - lw : align === 'center' ? x + (w - lw) / 2 : x;
      const ly = y + i * lh;
      this.drawLine(runs, visual, lx, ly, style.underline ?? false);
      if (style.link) this.doc.link(lx, ly, lw, lh, style.link);
    });
    return lines.length * lh;
  }

  /** One line in visual order with its top-left at (x, y): what pdfkit's text() writes, from the words' glyph runs. */
  private drawLine(runs: GlyphRuns, visual: string, x: number, y: number, underline: boolean): void {
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
    const d = this.internals;
    let op = fillOps.get(color);
    if (op === undefined) {
      const normalized = d._normalizeColor(color);
      op = normalized ? `/${d._getColorSpace(normalized)} cs\n${normalized.join(' ')} scn` : null;
      fillOps.set(color, op);
    }
    if (op !== null) d.page.content.write(op);
    d._fillColor = [color, undefined];
  }

  /** Height `text` would take in a box of width w. */
  measure(text: string, w: number, style: TextStyle = {}): number {
    return this.wrap(text, w, style).length * this.lineHeight(style.size ?? 10);
  }

  rect(x: number, y: number, w: number, h: number, fill: string): void {
    this.doc.save().rect(x, y, w, h).fill(fill).restore();
  }

  box(x: number, y: number, w: number, h: number, stroke: string, lineWidth = 0.8): void {
    this.doc.save().lineWidth(lineWidth).rect(x, y, w, h).stroke(stroke).restore();
  }

  rule(y: number, color = '#BBBBBB', x1: number = CONTENT.left, x2: number = CONTENT.right, lineWidth = 0.6): void {
    this.doc.save().lineWidth(lineWidth).moveTo(x1, y).lineTo(x2, y).stroke(color).restore();
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
    for (const page of d._pageBuffer) deflateRef(page.content as Ref);
    for (const layer of this.layers.values()) {
      deflateRef(layer.ref);
      layer.ref.end();
    }
    return new Promise((resolve, reject) => {
      const finalize = d._finalize.bind(d);
      // pdfkit ends asynchronously when an image is still being decoded; the cross-reference table comes last.
      d._finalize = () => {
        try {
          finalize();
          resolve(this.files(Buffer.concat(this.chunks)));
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
          replaced.set(layer.ref.id, streamObject(layer.ref.id, Buffer.from(['q\n', ...layer.others[i], 'Q\n'].join(''), 'latin1')));
        }
        const subject = d._info.data.Subject;
        if (subject && this.subjects[i + 1] !== undefined) replaced.set(subject.id, stringObject(subject.id, this.subjects[i + 1]));
        return spliceObjects(first, d._offsets, replaced);
      }),
    ];
  }
}
