import { DOC_TITLES } from './hebrew.ts';
import type { RenderModel, Variant } from './model.ts';
import { drawHeader, drawLines, drawNote, drawPageFurniture, drawParty, drawPayments, drawTitle, drawTotals } from './sections.ts';
import type { PdfSigner } from './sign.ts';
import { themeFor } from './theme.ts';
import { isReceiptStyle } from './wording.ts';
import { PdfWriter } from './writer.ts';

export interface RenderOptions {
  /** Required for origin and copy; a draft is never signed. */
  signer?: PdfSigner | null;
  /** The signing time and the PDF's creation date. */
  at: Date;
}

/**
 * Renders one document to PDF. origin/copy are signed (PAdES-style detached CMS); a draft is an
 * unsigned preview watermarked "טיוטה". Pure apart from CPU: no database, no files.
 */
export async function renderDocumentPdf(m: RenderModel, variant: Variant, opts: RenderOptions): Promise<Buffer> {
  if (variant !== 'draft' && !opts.signer) throw new Error(`a ${variant} PDF must be signed: no signer given`);
  const theme = themeFor(m.branding.template, m.branding.accentColor);
  const w = new PdfWriter({
    title: m.docNumber === null ? DOC_TITLES[m.docType] : `${DOC_TITLES[m.docType]} ${m.docNumber}`,
    author: m.dealer.name,
  });
  (w.doc.info as Record<string, unknown>).CreationDate = opts.at;
  drawHeader(w, m, theme, variant);
  drawTitle(w, m, theme, variant);
  drawParty(w, m, theme);
  drawLines(w, m, theme);
  if (!isReceiptStyle(m)) {
    drawTotals(w, m, theme);
    drawPayments(w, m, theme);
  } else {
    // A receipt: the payments first, then what was received in total.
    drawPayments(w, m, theme);
    drawTotals(w, m, theme);
  }
  drawNote(w, m, theme);
  drawPageFurniture(w, m, theme, variant);
  if (variant === 'draft') return w.finish();
  opts.signer!.addPlaceholder(w.doc, opts.at);
  const unsigned = await w.finish();
  return opts.signer!.sign(unsigned, opts.at);
}
