import type { Domain } from '../domains.ts';
import { registerPrintRoutes, registerPublicPdfRoutes } from './routes.ts';
import { RENDER_JOB, renderJobHandler } from './render-job.ts';

/** Signed PDFs, prints, share links, email (issue 4). */
export const printsDomain: Domain = {
  name: 'prints',
  api: registerPrintRoutes,
  root: registerPublicPdfRoutes,
  jobs: (s) => ({ [RENDER_JOB]: renderJobHandler(s) }),
};
