// The drawn parts of a document page, top to bottom. Coordinates: pdfkit points, y down.
import { L, VARIANT_LABELS, formatDate, formatQuantity, formatShekels } from './hebrew.ts';
import type { RenderModel, Variant } from './model.ts';
import type { Theme } from './theme.ts';
import { CONTENT, PAGE, PdfWriter } from './writer.ts';
import {
  dealerIdLine, footerLine, infoLines, pageLabel, paymentDetails, paymentMethodLabel,
  isNoVatDealer, isReceiptStyle, paymentsSummaryRows, titleLine, totalsRows, type TotalsRow,
} from './wording.ts';

const PAD = 5;

export function drawHeader(w: PdfWriter, m: RenderModel, theme: Theme, variant: Variant): void {
  const top = PAGE.margin;
  let right = CONTENT.right;
  if (m.branding.logo && m.branding.logo.length > 0) {
    try {
      w.doc.image(Buffer.from(m.branding.logo), CONTENT.right - 90, top, { fit: [90, 60], align: 'right' });
      right -= 100;
    } catch {
      // An unreadable logo never blocks the document: it prints without it.
    }
  }
  const blockW = 300;
  const x = right - blockW;
  let y = top;
  y += w.text(m.dealer.name, x, blockW, y, { size: 16, bold: true, color: theme.text });
  if (m.branding.tagline) y += w.text(m.branding.tagline, x, blockW, y, { size: 9, color: theme.muted });
  y += w.text(dealerIdLine(m), x, blockW, y, { size: 10, color: theme.text });
  if (m.dealer.address) y += w.text(m.dealer.address, x, blockW, y, { size: 9, color: theme.text });
  if (m.dealer.phone) y += w.text(`${L.phone}: ${m.dealer.phone}`, x, blockW, y, { size: 9, color: theme.text });
  if (m.dealer.email) {
    y += w.text(m.dealer.email, x, blockW, y, { size: 9, dir: 'ltr', align: 'right', color: theme.linkColor, link: `mailto:${m.dealer.email}` });
  }
  if (m.branding.website) {
    const url = /^https?:\/\//i.test(m.branding.website) ? m.branding.website : `https://${m.branding.website}`;
    y += w.text(m.branding.website, x, blockW, y, { size: 9, dir: 'ltr', align: 'right', color: theme.linkColor, link: url, underline: true });
  }
  drawVariantStamp(w, theme, variant, top);
  w.y = Math.max(y, top + 64) + 8;
}

function drawVariantStamp(w: PdfWriter, theme: Theme, variant: Variant, top: number): void {
  const bw = 120;
  const color = variant === 'draft' ? '#B00020' : theme.text;
  w.box(CONTENT.left, top, bw, 46, color, 1.2);
  w.text(VARIANT_LABELS[variant], CONTENT.left, bw, top + 3, { size: 18, bold: true, align: 'center', color });
  w.text(variant === 'draft' ? L.preview : L.computerized, CONTENT.left, bw, top + 30, { size: 8, align: 'center', color: theme.muted });
}

export function drawTitle(w: PdfWriter, m: RenderModel, theme: Theme, variant: Variant): void {
  w.rule(w.y, theme.ruleColor);
  w.y += 10;
  const dateW = 160;
  w.text(`${L.documentDate}: ${formatDate(m.documentDate)}`, CONTENT.left, dateW, w.y + 6, { size: 10, align: 'left', color: theme.text });
  w.y += w.text(titleLine(m, variant), CONTENT.left + dateW, CONTENT.width - dateW, w.y, { size: 20, bold: true, color: theme.text });
  for (const line of infoLines(m)) w.y += w.text(line, CONTENT.left, CONTENT.width, w.y, { size: 10, color: theme.text });
  w.y += 6;
}

export function drawParty(w: PdfWriter, m: RenderModel, theme: Theme): void {
  const p = m.party;
  if (!p) return;
  const lines: string[] = [];
  if (p.taxId) lines.push(`${L.buyerTaxId}: ${p.taxId}`);
  if (p.address) lines.push(p.address);
  const contact = [p.phone ? `${L.phone}: ${p.phone}` : null, p.email ? `${L.email}: ${p.email}` : null].filter(Boolean).join(' | ');
  if (contact) lines.push(contact);
  const bw = 300;
  const x = CONTENT.right - bw;
  const h = PAD * 2 + w.measure(`${L.to}: ${p.name}`, bw - 2 * PAD, { size: 11, bold: true }) + lines.reduce((a, l) => a + w.measure(l, bw - 2 * PAD, { size: 9.5 }), 0);
  w.ensure(h + 10);
  w.box(x, w.y, bw, h, theme.ruleColor);
  let y = w.y + PAD;
  y += w.text(`${L.to}: ${p.name}`, x + PAD, bw - 2 * PAD, y, { size: 11, bold: true, color: theme.text });
  for (const l of lines) y += w.text(l, x + PAD, bw - 2 * PAD, y, { size: 9.5, color: theme.text });
  w.y += h + 12;
}

interface Column {
  head: string;
  width: number;
  /** Cell text for row i. */
  cell: (i: number) => string;
  dir?: 'rtl' | 'ltr';
  sub?: (i: number) => string | null;
}

/** A table laid out right to left: the first column is the rightmost. Repeats its head on new pages. */
function drawTable(w: PdfWriter, theme: Theme, columns: Column[], rows: number): void {
  const flex = CONTENT.width - columns.reduce((a, c) => a + c.width, 0);
  const widths = columns.map((c) => (c.width === 0 ? flex : c.width));
  const xs: number[] = [];
  let edge = CONTENT.right;
  for (const cw of widths) {
    edge -= cw;
    xs.push(edge);
  }
  const headH = 20;
  const head = () => {
    w.rect(CONTENT.left, w.y, CONTENT.width, headH, theme.headFill);
    columns.forEach((c, i) => w.text(c.head, xs[i] + PAD, widths[i] - 2 * PAD, w.y + 4, { size: 9, bold: true, color: theme.headText }));
    w.y += headH;
  };
  w.ensure(headH + 24);
  head();
  for (let r = 0; r < rows; r++) {
    const heights = columns.map((c, i) => {
      const sub = c.sub?.(r);
      return w.measure(c.cell(r), widths[i] - 2 * PAD, { size: 9.5, dir: c.dir }) + (sub ? w.measure(sub, widths[i] - 2 * PAD, { size: 8 }) : 0);
    });
    const rowH = Math.max(...heights) + 2 * PAD - 2;
    if (w.ensure(rowH)) head();
    if (theme.stripeFill && r % 2 === 1) w.rect(CONTENT.left, w.y, CONTENT.width, rowH, theme.stripeFill);
    columns.forEach((c, i) => {
      const cw = widths[i] - 2 * PAD;
      const used = w.text(c.cell(r), xs[i] + PAD, cw, w.y + PAD - 1, { size: 9.5, dir: c.dir, align: 'right', color: theme.text });
      const sub = c.sub?.(r);
      if (sub) w.text(sub, xs[i] + PAD, cw, w.y + PAD - 1 + used, { size: 8, color: theme.muted });
    });
    w.y += rowH;
    w.rule(w.y, theme.ruleColor, CONTENT.left, CONTENT.right, 0.4);
  }
  w.y += 8;
}

export function drawLines(w: PdfWriter, m: RenderModel, theme: Theme): void {
  if (m.lines.length === 0) return;
  const anyDiscount = m.lines.some((l) => l.lineDiscount);
  const columns: Column[] = [
    { head: L.lineNo, width: 24, cell: (i) => String(i + 1), dir: 'ltr' },
    { head: L.description, width: 0, cell: (i) => m.lines[i].description, sub: (i) => (m.lines[i].sku ? `${L.sku}: ${m.lines[i].sku}` : null) },
    { head: L.quantity, width: 62, cell: (i) => `${formatQuantity(m.lines[i].quantity)} ${m.lines[i].unit || L.defaultUnit}` },
    { head: m.priceMode === 'gross' ? L.unitPriceGross : L.unitPrice, width: 82, cell: (i) => formatShekels(m.lines[i].unitPrice), dir: 'ltr' },
  ];
  if (anyDiscount) columns.push({ head: L.lineDiscount, width: 62, cell: (i) => (m.lines[i].lineDiscount ? formatShekels(-m.lines[i].lineDiscount) : ''), dir: 'ltr' });
  columns.push({ head: L.lineTotal, width: 82, cell: (i) => formatShekels(m.lines[i].amount), dir: 'ltr' });
  drawTable(w, theme, columns, m.lines.length);
  if (m.priceMode === 'gross') {
    w.y += w.text(L.pricesIncludeVat, CONTENT.left, CONTENT.width, w.y - 4, { size: 8.5, color: theme.muted }) - 2;
  }
}

/** Label/value rows in a block on the left side of the page. */
function drawSummary(w: PdfWriter, theme: Theme, rows: TotalsRow[]): void {
  if (rows.length === 0) return;
  const bw = 240;
  const lh = 19;
  w.ensure(rows.length * lh + 8);
  rows.forEach((r) => {
    if (r.strong) w.rect(CONTENT.left, w.y, bw, lh, theme.template === 'classic' ? '#F1F1F1' : '#F6F6F6');
    const style = { size: r.strong ? 11 : 10, bold: r.strong ?? false, color: theme.text };
    w.text(r.label, CONTENT.left + 95, bw - 95 - PAD, w.y + 3, style);
    w.text(r.value, CONTENT.left + PAD, 90, w.y + 3, { ...style, dir: 'ltr', align: 'left' });
    w.y += lh;
  });
  w.rule(w.y, theme.ruleColor, CONTENT.left, CONTENT.left + bw);
  w.y += 12;
}

export function drawTotals(w: PdfWriter, m: RenderModel, theme: Theme): void {
  drawSummary(w, theme, totalsRows(m));
  if (!isReceiptStyle(m) && isNoVatDealer(m)) {
    w.y += w.text(L.noVatPatur, CONTENT.left, 240, w.y - 6, { size: 8.5, color: theme.muted, align: 'left' });
  }
}

export function drawPayments(w: PdfWriter, m: RenderModel, theme: Theme): void {
  if (m.payments.length === 0) return;
  w.ensure(60);
  w.y += w.text(L.payments, CONTENT.left, CONTENT.width, w.y, { size: 12, bold: true, color: theme.text }) + 2;
  const p = m.payments;
  drawTable(w, theme, [
    { head: L.paymentMethod, width: 110, cell: (i) => paymentMethodLabel(p[i]) },
    { head: L.paymentDetails, width: 0, cell: (i) => paymentDetails(p[i]) },
    { head: L.dueDate, width: 80, cell: (i) => (p[i].dueDate ? formatDate(p[i].dueDate!) : ''), dir: 'ltr' },
    { head: L.amount, width: 90, cell: (i) => formatShekels(p[i].amount), dir: 'ltr' },
  ], p.length);
  drawSummary(w, theme, paymentsSummaryRows(m));
}

export function drawNote(w: PdfWriter, m: RenderModel, theme: Theme): void {
  if (!m.note) return;
  const h = w.measure(m.note, CONTENT.width, { size: 10 }) + 18;
  w.ensure(Math.min(h, 120));
  w.y += w.text(`${L.note}:`, CONTENT.left, CONTENT.width, w.y, { size: 10, bold: true, color: theme.text });
  for (const line of w.wrap(m.note, CONTENT.width, { size: 10 })) {
    w.ensure(16);
    w.y += w.text(line, CONTENT.left, CONTENT.width, w.y, { size: 10, color: theme.text });
  }
  w.y += 8;
}

/** Footer and (for drafts) the watermark on every page, drawn once the page count is known. */
export function drawPageFurniture(w: PdfWriter, m: RenderModel, theme: Theme, variant: Variant): void {
  const range = w.doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    w.doc.switchToPage(i);
    const y = PAGE.footerTop;
    w.rule(y, theme.ruleColor);
    let fy = y + 5;
    if (m.branding.footerText) fy += w.text(m.branding.footerText, CONTENT.left, CONTENT.width, fy, { size: 8, align: 'center', color: theme.muted });
    w.text(footerLine(variant), CONTENT.left + 90, CONTENT.width - 90, fy, { size: 8.5, bold: true, align: 'right', color: variant === 'draft' ? '#B00020' : theme.text });
    w.text(pageLabel(i - range.start + 1, range.count), CONTENT.left, 90, fy, { size: 8, align: 'left', color: theme.muted });
    if (variant === 'draft') drawWatermark(w);
  }
}

function drawWatermark(w: PdfWriter): void {
  const cx = PAGE.width / 2;
  const cy = PAGE.height / 2;
  w.doc.save();
  w.doc.rotate(-35, { origin: [cx, cy] });
  w.doc.fillOpacity(0.13);
  w.text(VARIANT_LABELS.draft, cx - 250, 500, cy - 80, { size: 130, bold: true, align: 'center', color: '#B00020' });
  w.doc.restore();
}
