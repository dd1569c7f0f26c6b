import type { Mode } from './platform/db/mode.ts';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import swaggerUi from '@fastify/swagger-ui';
import type { Services } from './platform/http/services.ts';
import { answerClientError, answerFrameworkError, ErrorSchema, installErrorHandler } from './platform/http/error-handler.ts';
import { installRequestContext, requestIdOf } from './platform/http/request-id.ts';
import { installMetrics } from './platform/http/metrics-route.ts';
import { checkRequestText, parseJsonBody } from './platform/http/input.ts';
import { buildSerializer, validatorCompiler } from './platform/http/schema-compilers.ts';
import { createApiAuth } from './accounts/index.ts';
import { installBusinessGuard } from './businesses/index.ts';
import { installRequestLog } from './request-log/index.ts';
import { domains } from './domains.ts';
import { installIdempotency } from './platform/http/idempotency.ts';
import { IDEMPOTENT_CREATES } from './idempotent-creates.ts';
import { finishOpenapiDocument, openapiTransform } from './platform/http/openapi.ts';
import { registerLlmsTxt } from './platform/http/llms.ts';
import { collectOperations, registerMcpRoutes } from './mcp/index.ts';

/** The version of the API (the OpenAPI document's, the MCP server's). */
const API_VERSION = '1.0.0';

declare module 'fastify' {
  interface FastifyInstance {
    routeList: { method: string; url: string; hidden: boolean }[];
  }
}

/** Mode of the answering database as far as the key's prefix tells; auth confirms it. */
function modeFromHeader(h: unknown): Mode {
  return typeof h === 'string' && h.trim().startsWith('bk_test_') ? 'sandbox' : 'live';
}

export async function buildApp(s: Services): Promise<FastifyInstance> {
  const app = Fastify({
    // The assertion picks Fastify's logger generic; without it the instance type no longer matches FastifyInstance.
    loggerInstance: s.logger as FastifyBaseLogger,
    bodyLimit: s.config.bodyLimitBytes,
    trustProxy: false,
    // Request ids unique across processes and runs (not Fastify's per-process counter `req-1`): in
    // every error body, the X-Request-Id header and every log line of the request (`reqId`). A
    // caller's own well-formed X-Request-Id is kept (platform/http/request-id.ts).
    genReqId: requestIdOf,
    // Long path segments reach the route schema, which names the parameter (maxLength 64 …).
    routerOptions: { maxParamLength: 1000 },
    // A URL that cannot be decoded or routed, and a request that is not valid HTTP: the same error shape.
    frameworkErrors: (err, req, reply) => {
      reply.header('X-Service-Mode', modeFromHeader(req.headers['x-api-key']));
      return answerFrameworkError(err, req, reply);
    },
    clientErrorHandler: answerClientError,
    // Also as the factory: a plugin context that calls addSchema gets a fresh schema controller
    // built from the factory, which would otherwise fall back to Fastify's default Ajv
    // (removeAdditional: true — unknown body fields silently dropped instead of refused).
    schemaController: { compilersFactory: { buildValidator: (() => validatorCompiler) as never, buildSerializer: buildSerializer as never } },
  });
  app.setValidatorCompiler(validatorCompiler);

  installJsonBodyParser(app);

  installRequestContext(app);
  installErrorHandler(app);
  installMetrics(app, s);
  installRequestLog(app, s);
  installRouteList(app);
  // Before any route: the MCP tools are read off the routes as they are registered.
  const mcpOperations = collectOperations(app);
  installCommonHooks(app);

  app.addSchema(ErrorSchema);
  await registerOpenapi(app);

  app.get('/healthz', { schema: { hide: true } }, async () => ({ ok: true }));

  // One authentication for the REST API and /mcp: one count of failed attempts per address.
  const auth = createApiAuth(s);
  // Typed by each route's schema (platform/http/api.ts); the same instance, so compile time only.
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  await typed.register(
    async (api) => {
      auth.install(api);
      installBusinessGuard(api, s);
      installIdempotency(api, s, IDEMPOTENT_CREATES);
      for (const d of domains) d.api?.(api, s);
    },
    { prefix: '/v1' },
  );
  for (const d of domains) await d.root?.(typed, s);
  await registerMcpRoutes(app, { auth, operations: mcpOperations, version: API_VERSION });

  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerLlmsTxt(app);
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  return app;
}

function installJsonBodyParser(app: FastifyInstance): void {
  // JSON is the one body type of the API (the expense intake adds multipart in its own scope, the
  // console form bodies in its own): anything else is 415. An empty body on a JSON POST (e.g.
  // `/issue` with no options) means "no options", not an error. See platform/http/input.ts for what
  // the parser refuses (invalid UTF-8, NUL, lone surrogates, duplicate keys, depth, huge arrays,
  // numbers beyond 2^53).
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

function installRouteList(app: FastifyInstance): void {
  // Every route, for the OpenAPI coverage check and the cross-tenant test.
  const routes: { method: string; url: string; hidden: boolean }[] = [];
  app.decorate('routeList', routes);
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: r.url, hidden: Boolean(r.schema?.hide) });
    }
  });
}

function installCommonHooks(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Service-Mode', modeFromHeader(req.headers['x-api-key']));
    reply.header('X-Request-Id', req.id);
  });
  // Text PostgreSQL cannot store (NUL, lone surrogates) in a query string, a path parameter or a
  // form body (the console's): refused for every route before its guard or handler reads it. JSON
  // bodies were checked by their parser (installJsonBodyParser), multipart file names by the intake.
  app.addHook('preValidation', async (req) => {
    checkRequestText(req.query, 'querystring');
    checkRequestText(req.params, 'params');
    if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) checkRequestText(req.body, 'body');
  });
}

async function registerOpenapi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'pinkas',
        version: API_VERSION,
        description:
          'Israeli tax documents and bookkeeping over JSON. Every request carries `X-Api-Key`; every failure is ' +
          '`{error, reason, requestId}` (`requestId` is also the `X-Request-Id` header of every response). JSON bodies are ' +
          'UTF-8; text may not hold NUL or unpaired surrogates; a field name appears once per object; nesting is at most ' +
          '32 levels and an array at most 10000 items; numbers are within ±(2^53−1), and -0 reads as 0. A body of another ' +
          'type answers 415.',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Api-Key',
            description: '`bk_live_…` answers from the live books, `bk_test_…` from the sandbox; each key has scopes.',
          },
        },
      },
      security: [{ apiKey: [] }],
    },
    // The errors, headers and tags every route shares are added here, not repeated per route (openapi.ts).
    transform: openapiTransform as never,
    transformObject: finishOpenapiDocument as never,
    refResolver: { buildLocalReference: (json, _base, _frag, i) => String(json.$id ?? `def-${i}`) },
  });
}
