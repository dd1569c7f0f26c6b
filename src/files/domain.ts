import type { Domain } from '../domain.ts';
import { registerFileRoutes } from './routes.ts';
import { fileSweepWorker } from './sweep-worker.ts';

/** Stored files: the routes, and the sweep of unreferenced objects. */
export const filesDomain: Domain = { name: 'files', api: registerFileRoutes, worker: (s) => fileSweepWorker(s) };
