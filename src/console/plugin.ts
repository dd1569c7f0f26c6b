import type { FastifyError } from 'fastify';
import type { Api } from '../platform/http/api.ts';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { Services } from '../platform/http/services.ts';
import { AppError } from '../platform/errors.ts';
import { errorSummary } from '../platform/logger.ts';
import { validationMessage } from '../platform/http/error-handler.ts';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.ts';
import { registerAccountPages } from './account-routes.ts';
import { registerAuthRoutes } from './auth-routes.ts';
import { registerBooksPages } from './books-routes.ts';
import { registerBrowsePages } from './browse-routes.ts';
import { registerRequestLogPages } from './request-log-routes.ts';
import { registerWebhookPages } from './webhook-routes.ts';
import { cookieOptions, csrfOk, frameOf, LANG_COOKIE, loadState, stateOf } from './context.ts';
import type { RawQuery } from './request-parts.ts';
import { safeConsolePath } from './forms.ts';
import { pickLang, t } from './i18n.ts';
import { smsSenderFor } from './sms.ts';
import { errorPage } from './views/auth-pages.ts';

const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
};

/**
 * The web console at /console: server-rendered HTML forms (no front-end build; every page works
 * without JavaScript). Cookies and form bodies are parsed only inside this plugin's scope, so the
 * JSON API keeps its strict parsers.
 */
export async function registerConsole(app: Api, s: Services): Promise<void> {
  const sms = smsSenderFor(s.config, s.logger);
  if (!sms) s.logger.warn('console: no SMS gateway configured in production; console sign-in is refused until TWILIO_* and SMS_FROM are set');

  await app.register(
    async (c) => {
      // Pages, not API operations: kept out of the OpenAPI document.
      c.addHook('onRoute', (route) => {
        route.schema = { ...(route.schema ?? {}), hide: true };
      });
      await c.register(cookie);
      await c.register(formbody, { bodyLimit: 16_384 });

      c.addHook('onRequest', async (req, reply) => {
        reply.headers(SECURITY_HEADERS);
        reply.header('X-Service-Mode', 'live');
        if (req.url.startsWith('/console/assets/')) return;
        await loadState(s, req, reply);
      });
      c.addHook('preHandler', async (req, reply) => {
        if (req.method !== 'POST') return;
        if (!csrfOk(req)) {
          const f = frameOf(req);
          const signedIn = stateOf(req).session?.secondFactorAt ? { name: '' } : undefined;
          return reply
            .status(403)
            .type('text/html; charset=utf-8')
            .send(errorPage({ ...f, signedIn }, 403, t(f.lang, 'err_csrf')));
        }
      });

      installErrorPages(c);

      c.get('/assets/console.css', async (_req, reply) =>
        reply.type('text/css; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(CONSOLE_CSS),
      );
      c.get('/assets/console.js', async (_req, reply) =>
        reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(CONSOLE_JS),
      );

      c.get<{ Querystring: RawQuery }>('/lang', async (req, reply) => {
        const q = req.query;
        const to = q.to === 'he' ? 'he' : 'en';
        reply.setCookie(LANG_COOKIE, to, { ...cookieOptions(s, 365 * 86_400), httpOnly: false });
        return reply.redirect(safeConsolePath(typeof q.back === 'string' ? q.back : undefined), 303);
      });

      registerAuthRoutes(c, s, sms);
      registerAccountPages(c, s);
      registerBrowsePages(c, s);
      registerRequestLogPages(c, s);
      registerWebhookPages(c, s);
      registerBooksPages(c, s);
    },
    { prefix: '/console' },
  );
}

/** Failures and unknown pages of the console answer an HTML page in the visitor's language. */
function installErrorPages(c: Api): void {
  c.setErrorHandler((err: FastifyError & { validationContext?: string }, req, reply) => {
    const lang = pickLang(req.cookies?.[LANG_COOKIE], req.headers['accept-language']);
    const f = { lang, csrf: '', path: '/console' };
    let status = 500;
    let message = t(lang, 'err_internal');
    if (err instanceof AppError) {
      status = err.status;
      message = status === 404 ? t(lang, 'err_not_found') : err.message;
      reply.headers(err.headers);
    } else if (err.validation) {
      status = 400;
      message = validationMessage(err.validationContext, err.validation);
    } else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      status = err.statusCode;
      message = err.statusCode === 413 ? 'the form is larger than the console accepts' : t(lang, 'err_csrf');
    } else {
      req.log.error({ err: errorSummary(err), url: req.url }, 'console: unexpected error');
    }
    return reply
      .status(status)
      .type('text/html; charset=utf-8')
      .send(errorPage(f, status, message));
  });
  c.setNotFoundHandler((req, reply) => {
    const lang = pickLang(req.cookies?.[LANG_COOKIE], req.headers['accept-language']);
    return reply
      .status(404)
      .type('text/html; charset=utf-8')
      .send(errorPage({ lang, csrf: '', path: '/console' }, 404, t(lang, 'err_not_found')));
  });
}
