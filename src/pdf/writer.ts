import PDFDocument from 'pdfkit';
import { hebrewFonts } from './fonts.ts';
import { visualOrder, wrapLogical, type BaseDirection } from './bidi.ts';
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

type FontkitFont = { layout: (...args: unknown[]) => unknown; __pinkasLtr?: boolean };
/** pdfkit's embedded font of one document: lays words out (layoutRun) and caches them (layoutCached). */
type DocumentFont = { name: string; font?: FontkitFont; layoutRun(text: string): unknown; layoutCached(text: string): unknown; __pinkasShared?: boolean };
type Ref = { id: number; data: Record<string, unknown>; buffer: Uint8Array[]; write(chunk: string): void; end(): void };
type Page = { content: Ref | { write(chunk: string | Uint8Array): void }; dictionary: { data: { Contents: unknown } } };
/** The pdfkit internals the writer reaches into (pinned by the lock file). */
interface Internals {
  page: Page;
  _offset: number;
  _offsets: number[];
  _info: { data: { Subject?: Ref } };
  _pageBuffer: Page[];
  _write(data: string | Uint8Array): void;
  _finalize(): void;
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
 * Laid-out words, shared by every document of the process (per font): a word's glyph run depends on
 * the font only (the fonts are parsed once, fonts.ts), and shaping Hebrew was most of a render once
 * the fonts were. pdfkit keeps such a cache per document; this one outlives it, bounded.
 */
const LAYOUT_CACHE_WORDS = 50_000;
const sharedLayouts = new Map<string, Map<string, unknown>>();

function shareLayouts(pdfFont: DocumentFont): void {
  let words = sharedLayouts.get(pdfFont.name);
  if (!words) sharedLayouts.set(pdfFont.name, (words = new Map()));
  const cache = words;
  pdfFont.layoutCached = (text: string) => {
    let run = cache.get(text);
    if (run === undefined) {
      if (cache.size >= LAYOUT_CACHE_WORDS) cache.clear();
      run = pdfFont.layoutRun(text);
      cache.set(text, run);
    }
    return run;
  };
  pdfFont.__pinkasShared = true;
}

/** Deflates what was written to a stream reference (pdfkit then writes it as it is). */
function deflateRef(ref: Ref): void {
  if (ref.buffer.length === 0) return;
  ref.buffer = [deflateContent(Buffer.concat(ref.buffer))];
  ref.data.Filter = 'FlateDecode';
}

/**
 * A thin layer over pdfkit that draws logical text (as stored) right-to-left correctly:
 * wrap the logical text, reorder each line to visual order with bidi-js, and make fontkit lay the
 * glyphs out strictly left to right (otherwise it reverses Hebrew runs a second time).
 */
export class PdfWriter {
  readonly doc: PDFKit.PDFDocument;
  y: number = PAGE.margin;
  private readonly chunks: Uint8Array[] = [];
  private readonly layers = new Map<Page, VariantLayer>();
  private readonly wrapped = new Map<string, string[]>();

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
    this.useFont(false, 10);
  }

  useFont(bold: boolean, size: number): void {
    this.doc.font(bold ? 'he-bold' : 'he').fontSize(size);
    const pdfFont = (this.doc as unknown as { _font: DocumentFont })._font;
    const font = pdfFont.font;
    if (font && !font.__pinkasLtr) {
      const layout = font.layout.bind(font);
      // Force left-to-right glyph order: the string is already in visual order.
      font.layout = (text: unknown, features: unknown, script: unknown, language: unknown) => layout(text, features, script, language, 'ltr');
      font.__pinkasLtr = true;
    }
    if (font && !pdfFont.__pinkasShared) {
      shareLayouts(pdfFont);
      shareEmbedding(pdfFont as unknown as EmbeddedFont);
    }
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
    this.useFont(style.bold ?? false, style.size ?? 10);
    return this.doc.widthOfString(text);
  }

  lineHeight(size = 10): number {
    return size * 1.4;
  }

  /** Lines of `text` in a box of `maxWidth`; measured once per document (sections measure, then draw). */
  wrap(text: string, maxWidth: number, style: TextStyle = {}): string[] {
    const bold = style.bold ?? false;
    const size = style.size ?? 10;
    this.useFont(bold, size);
    const key = `${bold ? 'b' : ''}${size}|${maxWidth}|${text}`;
    let lines = this.wrapped.get(key);
    if (!lines) {
      // Most texts are one line as written: one measure instead of one per word.
      const plain = !/[\r\n]| {2}|^ | $/.test(text);
      lines = plain && this.doc.widthOfString(text) <= maxWidth ? [text] : wrapLogical(text, maxWidth, (s) => this.doc.widthOfString(s));
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
    this.useFont(style.bold ?? false, size);
    this.doc.fillColor(style.color ?? '#222222');
    lines.forEach((line, i) => {
      const visual = visualOrder(line, style.dir ?? 'rtl');
      const lw = this.doc.widthOfString(visual);
      const align = style.align ?? (style.dir === 'ltr' ? 'left' : 'right');
      const lx = align === 'right' ? x + w - lw : align === 'center' ? x + (w - lw) / 2 : x;
      const ly = y + i * lh;
      this.doc.text(visual, lx, ly, { lineBreak: false, underline: style.underline ?? false });
      if (style.link) this.doc.link(lx, ly, lw, lh, style.link);
    });
    return lines.length * lh;
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
