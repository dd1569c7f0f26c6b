/** The openfrmt domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { BkmvAssembler, type ExportDocument, iniFile, newPrimaryId, productionDirectory } from './assemble.ts';
export { alpha } from './fields.ts';
export { type B100Input, type B110Input } from './ledger-records.ts';
export { type CarriedField, carrier, decimalsProblemOf, digitsProblemOf, maxAgorot, maxLength, maxScaled, maxValue, textProblemOf } from './limits.ts';
export { BkmvReader, type BkmvSummary, type Issue, readIni } from './reader.ts';
export { CrlfSplitter, type RecordFields, signedValue } from './record-parse.ts';
export { c100Amounts } from './records.ts';
export { lineDiscountAmount, paymentMethodCode } from './line-records.ts';
