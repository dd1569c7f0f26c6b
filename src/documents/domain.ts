import type { Domain } from '../domain.ts';
import { registerDocumentRoutes } from './routes.ts';

/** Tax documents: drafts, issue, conversion, credit notes: the routes. */
export const documentsDomain: Domain = { name: 'documents', api: registerDocumentRoutes };
