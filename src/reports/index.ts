/** The reports domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { registerReportRoutes } from './routes.ts';
