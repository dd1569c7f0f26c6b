/** The console domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { ConsoleSecretStore } from './secrets.ts';
