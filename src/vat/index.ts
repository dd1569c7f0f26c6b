/** The vat domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { sendVatLinesCsv, VAT_LINES_CSV, VAT_REPORT_CSV, vatReportCsv, vatReportCsvName } from './csv.ts';
export { parseVatPeriod } from './period.ts';
export { ledgerVatReport, type LedgerVatReport, vatLines } from './report.ts';
export { LedgerVatFields, VatLineSchema, VatLinesQuery, VatQuery } from './schemas.ts';
