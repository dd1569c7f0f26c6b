/** The console domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { registerConsole } from './plugin.ts';
export { consoleWorker } from './prune.ts';
export { ConsoleSecretStore } from './secrets.ts';
