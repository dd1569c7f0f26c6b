import type { Domain } from '../domain.ts';
import { registerBusinessRoutes } from './routes.ts';

/** Businesses, their settings, branding and numbering: the routes. */
export const businessesDomain: Domain = { name: 'businesses', api: registerBusinessRoutes };
