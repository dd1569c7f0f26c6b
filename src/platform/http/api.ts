import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

/**
 * The instance every route registers on. Its type provider reads each route's TypeBox schema, so a
 * handler's `req.body`, `req.params`, `req.query`, `req.headers` and its answer have the types of the
 * schemas Fastify checks them against. Compile time only: validation and serialization stay ours (app.ts).
 */
export type Api = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/**
 * The request of a route whose schema has (at least) these parts, typed by them: what a helper takes
 * when it reads a part, e.g. `ApiRequest<{ params: typeof BidIdParams }>`.
 */
export type ApiRequest<Schema extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  Schema,
  TypeBoxTypeProvider
>;
