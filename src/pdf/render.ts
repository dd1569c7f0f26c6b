import type { RenderModel, Variant } from './model.ts';
import { drawExchangeRate, drawHeader, drawLines, drawNote, drawParty, drawPayments, drawTitle, drawTotals } from './sections.ts';
import { drawPageFurniture } from './furniture.ts';
import type { PdfSigner } from './sign.ts';
import { themeFor } from './theme.ts';
import { languageOf } from './language.ts';
import { isReceiptStyle, metadataSubject, metadataTitle } from './wording.ts';
import { PdfWriter } from './writer.ts';

export interface RenderOptions {
  /** Required for origin and copy; a draft is never signed. */
  signer?: PdfSigner | null;
  /** The signing time and the PDF's creation date. */
  at: Date;
  /** A sandbox document: marked on every page as not a tax document. */
  sandbox?: boolean;
}

/** The PDF's /Lang: the primary language (Hebrew on a bilingual page). */
export const pdfLang = (m: RenderModel): string => (languageOf(m) === 'en' ? 'en' : 'he');

/**
 * Renders one document to PDF. origin/copy are signed (PAdES-style detached CMS); a draft is an
 * unsigned preview watermarked "טיוטה". Pure apart from CPU: no database, no files.
 */
export async function renderDocumentPdf(m: RenderModel, variant: Variant, opts: RenderOptions): Promise<Buffer> {
  if (variant !== 'draft' && !opts.signer) throw new Error(`a ${variant} PDF must be signed: no signer given`);
  const sandbox = opts.sandbox ?? false;
  const theme = themeFor(m.branding.template, m.branding.accentColor);
  const w = new PdfWriter({ title: metadataTitle(m), author: m.dealer.name, subject: metadataSubject(m, variant, sandbox), lang: pdfLang(m) });
  (w.doc.info as Record<string, unknown>).CreationDate = opts.at;
  drawHeader(w, m, theme, variant);
  drawTitle(w, m, theme, variant);
  drawParty(w, m, theme);
  drawLines(w, m, theme);
  // The exchange-rate block goes beside the totals when they stayed on one page.
  const totalsWithRate = () => {
    const pages = w.doc.bufferedPageRange().count;
    const top = w.y;
    drawTotals(w, m, theme);
    drawExchangeRate(w, m, theme, w.doc.bufferedPageRange().count === pages ? top : undefined);
  };
  if (!isReceiptStyle(m)) {
    totalsWithRate();
    drawPayments(w, m, theme);
  } else {
    // A receipt: the payments first, then what was received in total.
    drawPayments(w, m, theme);
    totalsWithRate();
  }
  drawNote(w, m, theme);
  const signer = variant === 'draft' ? null : opts.signer!;
  drawPageFurniture(w, m, theme, variant, { signature: signer?.signature ?? null, sandbox });
  if (!signer) return w.finish();
  signer.addPlaceholder(w.doc, opts.at, sandbox ? 'pinkas sandbox test document - not a tax document' : undefined);
  const unsigned = await w.finish();
  return signer.sign(unsigned, opts.at);
}
