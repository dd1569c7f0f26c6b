// What every page carries, drawn once the page count is known: the footer (print mark, "מסמך ממוחשב",
// the signature statement, page numbers), the sandbox band and the diagonal draft/sandbox marks.
import { L } from './hebrew.ts';
import { EN } from './english.ts';
import type { RenderModel, SignatureInfo, Variant } from './model.ts';
import { ALERT, flowOf, type Flow } from './sections.ts';
import type { Theme } from './theme.ts';
import { CONTENT, PAGE } from './page-geometry.ts';
import type { PdfWriter } from './writer.ts';
import { footerLine, pageLabel, sandboxLine, signatureStatement } from './wording.ts';

export interface Furniture {
  /** What signed the file; null on a draft. */
  signature: SignatureInfo | null;
  /** A sandbox file: a banner and a diagonal mark on every page. */
  sandbox: boolean;
}

/** Footer, sandbox banner and watermarks on every page, drawn once the page count is known. */
/** `variant`: the writer's first (origin and copy differ only in the footer line, drawn per variant). */
export function drawPageFurniture(w: PdfWriter, m: RenderModel, furniture: Furniture & { theme: Theme; variant: Variant }): void {
  const { theme, variant } = furniture;
  const f = flowOf(m);
  const range = w.doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    w.doc.switchToPage(i);
    const y = PAGE.footerTop;
    w.rule(y, { color: theme.ruleColor });
    let fy = y + 5;
    if (m.branding.footerText)
      fy += w.text(m.branding.footerText, { x: CONTENT.left, w: CONTENT.width, y: fy }, { size: 8, align: 'center', dir: f.para.dir, color: theme.muted });
    const markX = f.rtl ? CONTENT.left + 90 : CONTENT.left;
    const markColor = variant === 'draft' ? ALERT : theme.text;
    const at = fy;
    const used = w.forVariants((v) =>
      w.text(footerLine(v, f.lang), { x: markX, w: CONTENT.width - 90, y: at }, { ...f.para, size: 8.5, bold: true, color: markColor }),
    );
    w.text(
      pageLabel(i - range.start + 1, range.count, f.lang),
      { x: f.atEnd(85), w: 85, y: fy },
      {
        size: 8,
        dir: f.para.dir,
        align: f.rtl ? 'left' : 'right',
        color: theme.muted,
      },
    );
    if (variant !== 'draft')
      w.text(signatureStatement(furniture.signature, f.lang), { x: markX, w: CONTENT.width - 90, y: fy + used }, { ...f.para, size: 7, color: theme.muted });
    if (furniture.sandbox) drawSandboxBanner(w, f);
    if (variant === 'draft') drawDiagonal(w, f.lang === 'he' ? [L_DRAFT.he] : f.lang === 'en' ? [L_DRAFT.en, L_DRAFT.he] : [L_DRAFT.he, L_DRAFT.en]);
    else if (furniture.sandbox)
      drawDiagonal(w, f.lang === 'he' ? [L.sandboxShort] : f.lang === 'en' ? [EN.sandboxShort, L.sandboxShort] : [L.sandboxShort, EN.sandboxShort]);
  }
}

const L_DRAFT = { he: 'טיוטה', en: 'DRAFT' } as const;

/** A red band across the top of the page, above the header: it cannot be missed or cropped away. */
function drawSandboxBanner(w: PdfWriter, f: Flow): void {
  const top = 10;
  const h = 24;
  w.rect({ x: 0, y: top, w: PAGE.width, h }, ALERT);
  w.text(sandboxLine(f.lang), { x: CONTENT.left, w: CONTENT.width, y: top + 4 }, { size: 11, bold: true, align: 'center', dir: f.para.dir, color: '#FFFFFF' });
}

function drawDiagonal(w: PdfWriter, lines: string[]): void {
  const cx = PAGE.width / 2;
  const cy = PAGE.height / 2;
  const size = lines.length === 1 ? 130 : 90;
  w.doc.save();
  w.doc.rotate(-35, { origin: [cx, cy] });
  w.doc.fillOpacity(0.13);
  let y = cy - (lines.length * size * 1.2) / 2;
  for (const line of lines) {
    w.text(line, { x: cx - 300, w: 600, y }, { size, bold: true, align: 'center', color: ALERT });
    y += size * 1.2;
  }
  w.doc.restore();
}
