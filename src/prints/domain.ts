import type { Domain } from '../domain.ts';
import { registerPrintRoutes, registerPublicPdfRoutes } from './routes.ts';
import { RENDER_JOB, renderJobHandler } from './render-job.ts';

/** Signed PDFs, prints, share links, email (issue 4). */
export const printsDomain: Domain = {
  name: 'prints',
  api: registerPrintRoutes,
  root(app, s) {
    if (s.config.env === 'production' && !s.config.prints.signingP12) {
      s.logger.warn(
        'PDF_SIGNING_P12_PATH is not set: live documents stay pdf_pending until a signing certificate is configured (the sandbox uses a self-signed one)',
      );
    }
    registerPublicPdfRoutes(app, s);
  },
  jobs: (s) => ({ [RENDER_JOB]: renderJobHandler(s) }),
};
