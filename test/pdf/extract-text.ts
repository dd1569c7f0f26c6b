// Text of a PDF as a reader extracts it (pdf.js through unpdf, an npm package: no system tools).
import { extractText, getDocumentProxy } from 'unpdf';

export async function pdfText(pdf: Uint8Array): Promise<string> {
  const doc = await getDocumentProxy(new Uint8Array(pdf));
  const { text } = await extractText(doc, { mergePages: true });
  return text;
}

export async function pdfPageCount(pdf: Uint8Array): Promise<number> {
  const doc = await getDocumentProxy(new Uint8Array(pdf));
  return doc.numPages;
}

/** The text of each page, first page first. */
export async function pdfPageTexts(pdf: Uint8Array): Promise<string[]> {
  const doc = await getDocumentProxy(new Uint8Array(pdf));
  const { text } = await extractText(doc, { mergePages: false });
  return text;
}

/** The document information dictionary and the catalog's /Lang, as a reader sees them. */
export async function pdfInfo(
  pdf: Uint8Array,
): Promise<{ Title?: string; Author?: string; Subject?: string; Creator?: string; Producer?: string; Language?: string }> {
  const doc = await getDocumentProxy(new Uint8Array(pdf));
  const { info } = await doc.getMetadata();
  return info;
}
