/** The files domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { registerFileRoutes } from './routes.ts';
export { fileSweepWorker } from './sweep-worker.ts';
export { openAccountFile } from './access.ts';
export { thumbnails } from './thumbs.ts';
