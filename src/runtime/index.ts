/** The runtime domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { type Running, startBackground, startWeb } from './roles.ts';
export { joinSupervisor, type Role, ROLE_VARIABLE, supervise } from './supervisor.ts';
