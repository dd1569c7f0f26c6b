import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { Services } from './platform/http/services.ts';
import { installErrorHandler } from './platform/http/error-handler.ts';
import { ErrorBody } from './platform/http/schemas.ts';
import { installApiAuth } from './accounts/auth.ts';
import { installBusinessGuard } from './businesses/guard.ts';
import { domains } from './domains.ts';

declare module 'fastify' {
  interface FastifyInstance {
    routeList: { method: string; url: string; hidden: boolean }[];
  }
}

function ajv(coerce: boolean) {
  // Bodies are strict (a string is never silently turned into a number); queries and params are coerced.
  const instance = new Ajv({
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    allErrors: false,
    strict: false,
  });
  (addFormats as unknown as (a: Ajv) => void)(instance);
  return instance;
}

/** Mode of the answering database as far as the key's prefix tells; auth confirms it. */
function modeFromHeader(h: unknown): 'live' | 'sandbox' {
  return typeof h === 'string' && h.trim().startsWith('bk_test_') ? 'sandbox' : 'live';
}

export async function buildApp(s: Services): Promise<FastifyInstance> {
  const bodyAjv = ajv(false);
  const queryAjv = ajv(true);
  const validatorCompiler = ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema);
  const app = Fastify({
    loggerInstance: s.logger as FastifyBaseLogger,
    bodyLimit: s.config.bodyLimitBytes,
    trustProxy: false,
    // Also as the factory: a plugin context that calls addSchema gets a fresh schema controller
    // built from the factory, which would otherwise fall back to Fastify's default Ajv
    // (removeAdditional: true — unknown body fields silently dropped instead of refused).
    schemaController: { compilersFactory: { buildValidator: (() => validatorCompiler) as never } },
  });
  app.setValidatorCompiler(validatorCompiler);

  // An empty body on a JSON POST (e.g. `/issue` with no options) means "no options", not an error.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      const err = Object.assign(new Error('body: malformed JSON'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 });
      done(err, undefined);
    }
  });

  installErrorHandler(app);
  // Every route, for the OpenAPI coverage check and the cross-tenant test.
  const routes: { method: string; url: string; hidden: boolean }[] = [];
  app.decorate('routeList', routes);
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: r.url, hidden: Boolean((r.schema as { hide?: boolean } | undefined)?.hide) });
    }
  });
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Service-Mode', modeFromHeader(req.headers['x-api-key']));
  });

  app.addSchema(ErrorBody);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'pinkas',
        version: '1.0.0',
        description:
          'Israeli tax documents and bookkeeping over JSON. Every request carries `X-Api-Key`; every failure is `{error, reason}`.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
      security: [{ apiKey: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => String(json.$id ?? `def-${i}`) },
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ ok: true }));

  await app.register(
    async (api) => {
      installApiAuth(api, s);
      installBusinessGuard(api);
      for (const d of domains) d.api?.(api, s);
    },
    { prefix: '/v1' },
  );
  for (const d of domains) await d.root?.(app, s);

  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  return app;
}
