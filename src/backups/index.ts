/** The backups domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { restoreBackup } from './restore.ts';
export { sealKeyForReading } from './seal.ts';
