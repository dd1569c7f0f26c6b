/** The exports domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { ExportRunSchema, FileMetaSchema } from './schemas.ts';
export { exportFailureReason } from './run.ts';
export { type ExportRunView, finishRun, startPcn874Run } from './store.ts';
export { listRuns } from './list.ts';
export { type Verification } from './verify.ts';
