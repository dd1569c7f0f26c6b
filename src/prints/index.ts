/** The prints domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { createPdfRenderer } from './render-pool.ts';
export { printLog, type PrintLogEntry } from './handout.ts';
export { documentPreviewPdf } from './preview.ts';
