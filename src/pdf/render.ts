import type { RenderModel, Variant } from './model.ts';
import { drawExchangeRate, drawHeader, drawLines, drawNote, drawParty, drawPayments, drawTitle, drawTotals } from './sections.ts';
import { drawPageFurniture } from './furniture.ts';
import type { PdfSigner } from './sign.ts';
import { themeFor } from './theme.ts';
import { languageOf } from './language.ts';
import { isReceiptStyle, metadataSubject, metadataTitle } from './wording.ts';
import { PdfWriter } from './writer.ts';
import { preparedImage } from './image-cache.ts';

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
  return (await render(m, [variant], opts))[0];
}

/** The origin and the copy from one layout: the page is laid out and written once, the copy differs in its marks. */
export async function renderDocumentPair(m: RenderModel, opts: RenderOptions): Promise<{ origin: Buffer; copy: Buffer }> {
  const [origin, copy] = await render(m, ['origin', 'copy'], opts);
  return { origin, copy };
}

/** The files of `variants` (a draft alone, or any of origin and copy) from one layout pass. */
async function render(m: RenderModel, variants: Variant[], opts: RenderOptions): Promise<Buffer[]> {
  const draft = variants[0] === 'draft';
  if (!draft && !opts.signer) throw new Error(`a ${variants.join(' and ')} PDF must be signed: no signer given`);
  const sandbox = opts.sandbox ?? false;
  const theme = themeFor(m.branding.template, m.branding.accentColor);
  // An unreadable logo never blocks the document: it prints without it.
  const logo = m.branding.logo && m.branding.logo.length > 0 ? await preparedImage(m.branding.logo).catch(() => null) : null;
  const subjects = variants.map((v) => metadataSubject(m, v, sandbox));
  const w = new PdfWriter({ title: metadataTitle(m), author: m.dealer.name, lang: pdfLang(m) }, variants, subjects);
  (w.doc.info as Record<string, unknown>).CreationDate = opts.at;
  drawHeader(w, m, theme, logo);
  drawTitle(w, m, theme);
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
  const signer = draft ? null : opts.signer!;
  drawPageFurniture(w, m, { theme, variant: variants[0], signature: signer?.signature ?? null, sandbox });
  if (!signer) return w.finish();
  signer.addPlaceholder(w.doc, opts.at, sandbox ? 'pinkas sandbox test document - not a tax document' : undefined);
  return (await w.finish()).map((file) => signer.sign(file, opts.at));
}
