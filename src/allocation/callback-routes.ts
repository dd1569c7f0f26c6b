/**
 * Routes outside /v1 (the dealer's browser comes here, without an API key):
 *   GET /ita/callback                 the authority's redirect after consent (code + state)
 *   GET /ita/simulator/authorize      the simulated consent screen (sandbox, development)
 * The state names the database (l_… live, s_… sandbox) and is single use, 30 minutes.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../platform/http/services.ts';
import { redirectResponse } from '../platform/http/openapi.ts';
import { errors } from '../platform/http/schemas.ts';
import { AppError, notFound, validation } from '../platform/errors.ts';
import { randomToken } from '../platform/ids.ts';
import { completeConsent } from './consent.ts';
import { modeOfState } from './connections.ts';
import { providerFor } from './providers.ts';

const CallbackQuery = Type.Object(
  {
    state: Type.String({ minLength: 1, maxLength: 200 }),
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 4000 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  // The authority may add parameters of its own (e.g. scope): tolerate them.
  { additionalProperties: true },
);

function finish(
  reply: FastifyReply,
  returnUrl: string | null,
  { outcome, businessId, message }: { outcome: 'connected' | 'denied' | 'failed'; businessId: string; message?: string },
) {
  if (returnUrl) {
    const url = new URL(returnUrl);
    url.searchParams.set('allocation', outcome);
    url.searchParams.set('businessId', businessId);
    return reply.redirect(url.toString(), 302);
  }
  if (outcome === 'connected') return reply.send({ ok: true, businessId, status: 'connected' });
  // Through the error handler, like every failure: the one error shape, with the request id.
  throw new AppError(outcome === 'denied' ? 'forbidden' : 'provider', message ?? outcome);
}

export function registerAllocationRootRoutes(app: FastifyInstance, s: Services): void {
  registerConsentCallback(app, s);
  registerSimulatorConsentScreen(app, s);
}

function registerConsentCallback(app: FastifyInstance, s: Services): void {
  app.get(
    '/ita/callback',
    {
      schema: {
        tags: ['allocation'],
        operationId: 'completeAllocationConsent',
        summary: "The tax authority's redirect after the dealer's consent",
        querystring: CallbackQuery,
        security: [],
        response: {
          200: Type.Object(
            { ok: Type.Literal(true), businessId: Type.String(), status: Type.Literal('connected') },
            { description: 'Connected (no returnUrl was given).' },
          ),
          302: redirectResponse('Back to the returnUrl of the connect request, with `allocation=connected|denied|failed` and `businessId`.'),
          ...errors(403, 502, 503),
        },
      },
    },
    async (req, reply) => {
      const q = req.query as { state: string; code?: string; error?: string; error_description?: string };
      const mode = modeOfState(q.state);
      if (!mode) throw validation('query.state', 'unknown consent state');
      const done = await completeConsent(s, mode, q);
      return finish(reply, done.returnUrl, { outcome: done.outcome, businessId: done.businessId, message: done.message });
    },
  );
}

function registerSimulatorConsentScreen(app: FastifyInstance, s: Services): void {
  // The simulated consent screen grants at once: it redirects back to the callback with a code.
  app.get(
    '/ita/simulator/authorize',
    {
      schema: {
        hide: true,
        querystring: Type.Object({ state: Type.String({ minLength: 1, maxLength: 200 }), deny: Type.Optional(Type.String()) }, { additionalProperties: true }),
      },
    },
    async (req, reply) => {
      const q = req.query as { state: string; deny?: string };
      const mode = modeOfState(q.state);
      if (!mode || providerFor(s, mode)?.kind !== 'simulator') throw notFound('consent screen');
      const url = new URL(`${s.config.publicBaseUrl}/ita/callback`);
      url.searchParams.set('state', q.state);
      if (q.deny) url.searchParams.set('error', 'access_denied');
      else url.searchParams.set('code', `sim_${randomToken(16)}`);
      return reply.redirect(url.toString(), 302);
    },
  );
}
