/** SQL for a document's PDFs as `{origin: {fileId, slug}, copy: {…}}`: the pdf_links its render published (migration 0040). */
export const pdfFilesOf = (documentId: string) =>
  `(SELECT jsonb_object_agg(variant, jsonb_build_object('fileId', file_id, 'slug', slug)) FROM pdf_links WHERE document_id = ${documentId})`;
