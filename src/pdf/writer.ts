import PDFDocument from 'pdfkit';
import { hebrewFonts } from './fonts.ts';
import { visualOrder, wrapLogical, type BaseDirection } from './bidi.ts';

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

/**
 * A thin layer over pdfkit that draws logical text (as stored) right-to-left correctly:
 * wrap the logical text, reorder each line to visual order with bidi-js, and make fontkit lay the
 * glyphs out strictly left to right (otherwise it reverses Hebrew runs a second time).
 */
export class PdfWriter {
  readonly doc: PDFKit.PDFDocument;
  y: number = PAGE.margin;

  constructor(info: { title: string; author: string; subject?: string; lang?: string }) {
    this.doc = new PDFDocument({
      size: 'A4',
      margins: { top: PAGE.margin, bottom: 10, left: PAGE.margin, right: PAGE.margin },
      bufferPages: true,
      autoFirstPage: true,
      info: { Title: info.title, Author: info.author, ...(info.subject ? { Subject: info.subject } : {}), Creator: 'pinkas', Producer: 'pinkas' },
      lang: info.lang ?? 'he',
    });
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
    if (font && !pdfFont.__pinkasShared) shareLayouts(pdfFont);
  }

  width(text: string, style: TextStyle = {}): number {
    this.useFont(style.bold ?? false, style.size ?? 10);
    return this.doc.widthOfString(text);
  }

  lineHeight(size = 10): number {
    return size * 1.4;
  }

  wrap(text: string, maxWidth: number, style: TextStyle = {}): string[] {
    this.useFont(style.bold ?? false, style.size ?? 10);
    return wrapLogical(text, maxWidth, (s) => this.doc.widthOfString(s));
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

  finish(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      this.doc.on('data', (c: Buffer) => chunks.push(c));
      this.doc.on('end', () => resolve(Buffer.concat(chunks)));
      this.doc.on('error', reject);
      this.doc.end();
    });
  }
}
