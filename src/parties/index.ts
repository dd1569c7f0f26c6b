/** The parties domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { getParty, listPartiesPage } from './service.ts';
export { PartiesQuery, type PartiesQueryValue } from './schemas.ts';
