/** The files domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { openAccountFile } from './access.ts';
export { thumbnails } from './thumbs.ts';
