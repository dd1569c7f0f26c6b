// The drawn parts of a document page, top to bottom. Coordinates: pdfkit points, y down.
// Hebrew and bilingual pages run right to left; English pages are the mirror image (logo, dealer
// and buyer on the left, the stamp and the totals on the right).
import { L, formatQuantity } from './hebrew.ts';
import { EN } from './english.ts';
import { baseDirection, head, label, languageOf } from './language.ts';
import type { Language, RenderModel, Variant } from './model.ts';
import type { Theme } from './theme.ts';
import { CONTENT, PAGE, type TextStyle } from './page-geometry.ts';
import type { PdfWriter } from './writer.ts';
import type { PreparedImage } from './image-cache.ts';
import {
  amountIn,
  dateIn,
  dealerIdLine,
  exchangeRateBlock,
  infoLines,
  isNoVatDealer,
  isReceiptStyle,
  noteHeading,
  paymentDetails,
  paymentMethodLabel,
  paymentsSummaryRows,
  stampLines,
  titleLine,
  titleSecondLine,
  totalsRows,
  type TotalsRow,
} from './wording.ts';

const PAD = 5;
export const ALERT = '#B00020';

/** The page's direction and its sides. */
export interface Flow {
  lang: Language;
  rtl: boolean;
  /** Paragraph style of the page: base direction and alignment at the start side. */
  para: Pick<TextStyle, 'dir' | 'align'>;
  /** x of a block of width bw placed at the start side (right on RTL pages) or the end side. */
  atStart(bw: number): number;
  atEnd(bw: number): number;
}

/** What a section draws with: the writer, the page's reading direction and language, the colours. */
interface Pen {
  w: PdfWriter;
  f: Flow;
  theme: Theme;
}

export function flowOf(m: RenderModel): Flow {
  const lang = languageOf(m);
  const rtl = baseDirection(lang) === 'rtl';
  return {
    lang,
    rtl,
    para: { dir: rtl ? 'rtl' : 'ltr', align: rtl ? 'right' : 'left' },
    atStart: (bw) => (rtl ? CONTENT.right - bw : CONTENT.left),
    atEnd: (bw) => (rtl ? CONTENT.left : CONTENT.right - bw),
  };
}

/** `logo`: the branding's logo as image-cache.ts prepared it, null without one or when it could not be read. */
export function drawHeader(w: PdfWriter, m: RenderModel, theme: Theme, logo: PreparedImage | null): void {
  const f = flowOf(m);
  const top = PAGE.margin;
  let indent = 0;
  if (logo) {
    try {
      w.doc.image(logo as unknown as Buffer, f.atStart(90), top, f.rtl ? { fit: [90, 60], align: 'right' } : { fit: [90, 60] });
      indent = 100;
    } catch {
      // An unreadable logo never blocks the document: it prints without it.
    }
  }
  const blockW = 300;
  const x = f.rtl ? CONTENT.right - indent - blockW : CONTENT.left + indent;
  const s = (extra: TextStyle) => ({ ...f.para, color: theme.text, ...extra });
  let y = top;
  y += w.text(m.dealer.name, { x, w: blockW, y }, s({ size: 16, bold: true }));
  if (m.branding.tagline) y += w.text(m.branding.tagline, { x, w: blockW, y }, s({ size: 9, color: theme.muted }));
  y += w.text(dealerIdLine(m), { x, w: blockW, y }, s({ size: 10 }));
  if (m.dealer.address) y += w.text(m.dealer.address, { x, w: blockW, y }, s({ size: 9 }));
  if (m.dealer.phone) y += w.text(`${label(f.lang, 'phone')}: ${m.dealer.phone}`, { x, w: blockW, y }, s({ size: 9 }));
  if (m.dealer.email) {
    y += w.text(m.dealer.email, { x, w: blockW, y }, s({ size: 9, dir: 'ltr', color: theme.linkColor, link: `mailto:${m.dealer.email}` }));
  }
  if (m.branding.website) {
    const url = /^https?:\/\//i.test(m.branding.website) ? m.branding.website : `https://${m.branding.website}`;
    y += w.text(m.branding.website, { x, w: blockW, y }, s({ size: 9, dir: 'ltr', color: theme.linkColor, link: url, underline: true }));
  }
  const stampBottom = w.forVariants((variant) => drawVariantStamp({ w, f, theme }, variant, top));
  w.y = Math.max(y, stampBottom, top + 64) + 8;
}

/** The origin/copy/draft stamp at the end side; answers its bottom. */
function drawVariantStamp({ w, f, theme }: Pen, variant: Variant, top: number): number {
  const bw = 130;
  const x = f.atEnd(bw);
  const color = variant === 'draft' ? ALERT : theme.text;
  const { marks, small } = stampLines(variant, f.lang);
  let y = top + 3;
  marks.forEach((mark, i) => {
    y += w.text(mark, { x, w: bw, y }, { size: i === 0 ? 18 : 12, bold: true, align: 'center', color }) - (i === 0 ? 4 : 2);
  });
  y += w.text(small, { x, w: bw, y: y + 2 }, { size: 7.5, align: 'center', color: theme.muted, dir: f.para.dir }) + 4;
  w.box({ x, y: top, w: bw, h: y - top }, color, 1.2);
  return y;
}

export function drawTitle(w: PdfWriter, m: RenderModel, theme: Theme): void {
  const f = flowOf(m);
  w.rule(w.y, { color: theme.ruleColor });
  w.y += 10;
  const dateW = 170;
  const dateLine = `${label(f.lang, 'documentDate')}: ${dateIn(m, m.documentDate)}`;
  w.text(dateLine, { x: f.atEnd(dateW), w: dateW, y: w.y + 6 }, { size: 10, align: f.rtl ? 'left' : 'right', dir: f.para.dir, color: theme.text });
  const titleX = f.rtl ? CONTENT.left + dateW : CONTENT.left;
  // The title names a draft as such: drawn per variant, like the stamp.
  const top = w.y;
  w.y += w.forVariants((variant) => {
    let h = w.text(titleLine(m, variant), { x: titleX, w: CONTENT.width - dateW, y: top }, { ...f.para, size: 20, bold: true, color: theme.text });
    const second = titleSecondLine(m, variant);
    if (second) h += w.text(second, { x: titleX, w: CONTENT.width - dateW, y: top + h - 2 }, { ...f.para, size: 13, bold: true, color: theme.text });
    return h;
  });
  for (const line of infoLines(m)) w.y += w.text(line, { x: CONTENT.left, w: CONTENT.width, y: w.y }, { ...f.para, size: 10, color: theme.text });
  w.y += 6;
}

export function drawParty(w: PdfWriter, m: RenderModel, theme: Theme): void {
  const p = m.party;
  if (!p) return;
  const f = flowOf(m);
  const lines: string[] = [];
  if (p.taxId) lines.push(`${label(f.lang, 'buyerTaxId')}: ${p.taxId}`);
  if (p.address) lines.push(p.address);
  const contact = [p.phone ? `${label(f.lang, 'phone')}: ${p.phone}` : null, p.email ? `${label(f.lang, 'email')}: ${p.email}` : null]
    .filter(Boolean)
    .join(' | ');
  if (contact) lines.push(contact);
  const bw = 300;
  const x = f.atStart(bw);
  const nameLine = `${label(f.lang, 'to')}: ${p.name}`;
  const h = PAD * 2 + w.measure(nameLine, bw - 2 * PAD, { size: 11, bold: true }) + lines.reduce((a, l) => a + w.measure(l, bw - 2 * PAD, { size: 9.5 }), 0);
  w.ensure(h + 10);
  w.box({ x, y: w.y, w: bw, h }, theme.ruleColor);
  let y = w.y + PAD;
  y += w.text(nameLine, { x: x + PAD, w: bw - 2 * PAD, y }, { ...f.para, size: 11, bold: true, color: theme.text });
  for (const l of lines) y += w.text(l, { x: x + PAD, w: bw - 2 * PAD, y }, { ...f.para, size: 9.5, color: theme.text });
  w.y += h + 12;
}

interface Column {
  head: string;
  width: number;
  /** Cell text for row i. */
  cell: (i: number) => string;
  /** Amounts, dates, numbers: drawn LTR and aligned to the right on every page. */
  numeric?: boolean;
  sub?: (i: number) => string | null;
}

/** A table in reading order: the first column is at the start side. Repeats its head on new pages. */
function drawTable({ w, f, theme }: Pen, columns: Column[], rows: number): void {
  const flex = CONTENT.width - columns.reduce((a, c) => a + c.width, 0);
  const widths = columns.map((c) => (c.width === 0 ? flex : c.width));
  const xs: number[] = [];
  let edge = f.rtl ? CONTENT.right : CONTENT.left;
  for (const cw of widths) {
    xs.push(f.rtl ? edge - cw : edge);
    edge += f.rtl ? -cw : cw;
  }
  const cellStyle = (c: Column): TextStyle => (c.numeric ? { dir: 'ltr', align: 'right' } : { dir: f.para.dir, align: f.rtl ? 'right' : 'left' });
  const headStyle = { size: 9, bold: true };
  const headH = Math.max(20, ...columns.map((c, i) => w.measure(c.head, widths[i] - 2 * PAD, headStyle) + 7));
  const drawHead = () => {
    w.rect({ x: CONTENT.left, y: w.y, w: CONTENT.width, h: headH }, theme.headFill);
    columns.forEach((c, i) =>
      w.text(c.head, { x: xs[i] + PAD, w: widths[i] - 2 * PAD, y: w.y + 4 }, { ...headStyle, ...cellStyle(c), dir: f.para.dir, color: theme.headText }),
    );
    w.y += headH;
  };
  w.ensure(headH + 24);
  drawHead();
  for (let r = 0; r < rows; r++) {
    const heights = columns.map((c, i) => {
      const sub = c.sub?.(r);
      return w.measure(c.cell(r), widths[i] - 2 * PAD, { size: 9.5, dir: cellStyle(c).dir }) + (sub ? w.measure(sub, widths[i] - 2 * PAD, { size: 8 }) : 0);
    });
    const rowH = Math.max(...heights) + 2 * PAD - 2;
    if (w.ensure(rowH)) drawHead();
    if (theme.stripeFill && r % 2 === 1) w.rect({ x: CONTENT.left, y: w.y, w: CONTENT.width, h: rowH }, theme.stripeFill);
    columns.forEach((c, i) => {
      const cw = widths[i] - 2 * PAD;
      const used = w.text(c.cell(r), { x: xs[i] + PAD, w: cw, y: w.y + PAD - 1 }, { size: 9.5, ...cellStyle(c), color: theme.text });
      const sub = c.sub?.(r);
      if (sub) w.text(sub, { x: xs[i] + PAD, w: cw, y: w.y + PAD - 1 + used }, { size: 8, ...cellStyle(c), dir: f.para.dir, color: theme.muted });
    });
    w.y += rowH;
    w.rule(w.y, { color: theme.ruleColor, lineWidth: 0.4 });
  }
  w.y += 8;
}

export function drawLines(w: PdfWriter, m: RenderModel, theme: Theme): void {
  if (m.lines.length === 0) return;
  const f = flowOf(m);
  const anyDiscount = m.lines.some((l) => l.lineDiscount);
  const defaultUnit = f.lang === 'en' ? EN.defaultUnit : L.defaultUnit;
  // A draft's line without a unit stores the Hebrew default (יחידה); an English document prints it in English.
  const unitOf = (unit: string | null | undefined): string => (!unit || (f.lang === 'en' && unit === L.unit) ? defaultUnit : unit);
  const columns: Column[] = [
    { head: head(f.lang, 'lineNo'), width: 24, cell: (i) => String(i + 1), numeric: true },
    {
      head: head(f.lang, 'description'),
      width: 0,
      cell: (i) => m.lines[i].description,
      sub: (i) => (m.lines[i].sku ? `${label(f.lang, 'sku')}: ${m.lines[i].sku}` : null),
    },
    { head: head(f.lang, 'quantity'), width: 62, cell: (i) => `${formatQuantity(m.lines[i].quantity)} ${unitOf(m.lines[i].unit)}` },
    { head: head(f.lang, m.priceMode === 'gross' ? 'unitPriceGross' : 'unitPrice'), width: 86, cell: (i) => amountIn(m, m.lines[i].unitPrice), numeric: true },
  ];
  if (anyDiscount)
    columns.push({
      head: head(f.lang, 'lineDiscount'),
      width: 66,
      cell: (i) => (m.lines[i].lineDiscount ? amountIn(m, -m.lines[i].lineDiscount) : ''),
      numeric: true,
    });
  columns.push({ head: head(f.lang, 'lineTotal'), width: 90, cell: (i) => amountIn(m, m.lines[i].amount), numeric: true });
  drawTable({ w, f, theme }, columns, m.lines.length);
  if (m.priceMode === 'gross') {
    w.y += w.text(label(f.lang, 'pricesIncludeVat'), { x: CONTENT.left, w: CONTENT.width, y: w.y - 4 }, { ...f.para, size: 8.5, color: theme.muted }) - 2;
  }
}

/** Width of a summary block: bilingual labels need more room. */
const summaryWidth = (f: Flow) => (f.lang === 'he' ? 240 : 252);

/** Label/value rows in a block at the end side (left on RTL pages, right on English ones), or at `x0`. */
function drawSummary({ w, f, theme }: Pen, rows: TotalsRow[], at?: number): void {
  if (rows.length === 0) return;
  const bw = summaryWidth(f);
  const valueW = f.lang === 'he' ? 90 : 105;
  const labelW = bw - valueW - 5 - PAD;
  const x0 = at ?? f.atEnd(bw);
  const heights = rows.map((r) => Math.max(19, w.measure(r.label, labelW, { size: r.strong ? 11 : 10, bold: r.strong ?? false }) + 5));
  w.ensure(heights.reduce((a, h) => a + h, 0) + 8);
  rows.forEach((r, i) => {
    const lh = heights[i];
    if (r.strong) w.rect({ x: x0, y: w.y, w: bw, h: lh }, theme.template === 'classic' ? '#F1F1F1' : '#F6F6F6');
    const style = { size: r.strong ? 11 : 10, bold: r.strong ?? false, color: theme.text };
    const labelX = f.rtl ? x0 + valueW + 5 : x0 + PAD;
    const valueX = f.rtl ? x0 + PAD : x0 + bw - valueW - PAD;
    w.text(r.label, { x: labelX, w: labelW, y: w.y + 3 }, { ...style, ...f.para });
    w.text(r.value, { x: valueX, w: valueW, y: w.y + 3 }, { ...style, dir: 'ltr', align: f.rtl ? 'left' : 'right' });
    w.y += lh;
  });
  w.rule(w.y, { color: theme.ruleColor, x1: x0, x2: x0 + bw });
  w.y += 12;
}

export function drawTotals(w: PdfWriter, m: RenderModel, theme: Theme): void {
  const f = flowOf(m);
  drawSummary({ w, f, theme }, totalsRows(m));
  if (!isReceiptStyle(m) && isNoVatDealer(m)) {
    w.y += w.text(
      label(f.lang, 'noVatPatur'),
      { x: f.atEnd(240), w: 240, y: w.y - 6 },
      { size: 8.5, color: theme.muted, dir: f.para.dir, align: f.rtl ? 'left' : 'right' },
    );
  }
}

/**
 * A foreign-currency document: the rate, its date and source, and the shekel totals recorded at
 * issue. Drawn beside the totals (at the start side, from `besideTop`) when it fits on that page,
 * else under them at the end side.
 */
export function drawExchangeRate(w: PdfWriter, m: RenderModel, theme: Theme, besideTop?: number): void {
  const block = exchangeRateBlock(m);
  if (!block) return;
  const f = flowOf(m);
  const bw = summaryWidth(f);
  const style = { size: 9, dir: f.para.dir, color: theme.text };
  const linesH = w.lineHeight(10) + block.lines.reduce((a, l) => a + w.measure(l, bw, style), 0) + 4;
  const rowsH = block.rows.reduce((a, r) => a + Math.max(19, w.measure(r.label, bw - 115, { size: 11 }) + 5), 0) + 12;
  const beside = besideTop !== undefined && besideTop + linesH + rowsH <= PAGE.footerTop - 8;
  const after = w.y;
  if (beside) w.y = besideTop;
  else w.ensure(linesH + rowsH);
  const x = beside ? f.atStart(bw) : f.atEnd(bw);
  // Beside the totals the block reads from the start side; under them it lines up with them.
  const align = beside === f.rtl ? ('right' as const) : ('left' as const);
  w.y += w.text(label(f.lang, 'ilsEquivalents'), { x, w: bw, y: w.y }, { ...style, align, size: 10, bold: true });
  for (const line of block.lines) w.y += w.text(line, { x, w: bw, y: w.y }, { ...style, align });
  w.y += 4;
  drawSummary({ w, f, theme }, block.rows, x);
  if (beside) w.y = Math.max(w.y, after);
}

export function drawPayments(w: PdfWriter, m: RenderModel, theme: Theme): void {
  if (m.payments.length === 0) return;
  const f = flowOf(m);
  w.ensure(60);
  w.y += w.text(label(f.lang, 'payments'), { x: CONTENT.left, w: CONTENT.width, y: w.y }, { ...f.para, size: 12, bold: true, color: theme.text }) + 2;
  const p = m.payments;
  drawTable(
    { w, f, theme },
    [
      { head: head(f.lang, 'paymentMethod'), width: 110, cell: (i) => paymentMethodLabel(p[i], f.lang) },
      { head: head(f.lang, 'paymentDetails'), width: 0, cell: (i) => paymentDetails(p[i], f.lang) },
      { head: head(f.lang, 'dueDate'), width: 80, cell: (i) => (p[i].dueDate ? dateIn(m, p[i].dueDate) : ''), numeric: true },
      { head: head(f.lang, 'amount'), width: 96, cell: (i) => amountIn(m, p[i].amount), numeric: true },
    ],
    p.length,
  );
  drawSummary({ w, f, theme }, paymentsSummaryRows(m));
}

export function drawNote(w: PdfWriter, m: RenderModel, theme: Theme): void {
  if (!m.note) return;
  const f = flowOf(m);
  const h = w.measure(m.note, CONTENT.width, { size: 10 }) + 18;
  w.ensure(Math.min(h, 120));
  w.y += w.text(noteHeading(f.lang), { x: CONTENT.left, w: CONTENT.width, y: w.y }, { ...f.para, size: 10, bold: true, color: theme.text });
  for (const line of w.wrap(m.note, CONTENT.width, { size: 10 })) {
    w.ensure(16);
    w.y += w.text(line, { x: CONTENT.left, w: CONTENT.width, y: w.y }, { ...f.para, size: 10, color: theme.text });
  }
  w.y += 8;
}
