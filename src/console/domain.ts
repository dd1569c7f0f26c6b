import type { Domain } from '../domain.ts';
import { registerConsole } from './plugin.ts';
import { consoleWorker } from './prune.ts';

/** The web console (outside /v1), and its pruning of expired sessions. */
export const consoleDomain: Domain = { name: 'console', root: registerConsole, worker: consoleWorker };
