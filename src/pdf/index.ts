/** The pdf domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { generateSelfSignedP12, parseP12 } from './certificate.ts';
export { EN, EN_DOC_TITLES } from './english.ts';
export { DOC_TITLES, L } from './hebrew.ts';
export { type ExchangeRateSource, type Language, type RenderCurrency, type RenderModel, type RenderPayment, type Template, type Variant } from './model.ts';
export type { DealerType } from './hebrew.ts';
export { renderDocumentPair, renderDocumentPdf } from './render.ts';
export { pdfSigner, type PdfSigner } from './sign.ts';
