import type { Domain } from '../domain.ts';
import { registerBackupRoutes } from './routes.ts';

/** A business's backups: the routes. */
export const backupsDomain: Domain = { name: 'backups', api: registerBackupRoutes };
