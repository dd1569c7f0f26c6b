/**
 * The parts of a console request that no route schema checks (most pages have none: they read forms
 * and links of their own), typed as what Fastify hands over.
 */
import type { FastifyRequest } from 'fastify';
import { isJsonObject } from '../platform/http/input.ts';

/**
 * A page's query as the querystring parser leaves it: a key given once is a string, a repeated one an
 * array. A page without a query schema declares it as its route's `Querystring`.
 */
export type RawQuery = Partial<Record<string, string | string[]>>;

/** A path parameter of the page's route: the router gives every `:name` of the path as a string. */
export function pathParam(req: FastifyRequest, name: string): string {
  const value = isJsonObject(req.params) ? req.params[name] : undefined;
  if (typeof value !== 'string') throw new Error(`the route has no :${name}`);
  return value;
}

/** A list page's `cursor`, when one is given. */
export function cursorOf(query: RawQuery): string | undefined {
  const cursor = query.cursor;
  return typeof cursor === 'string' && cursor !== '' ? cursor : undefined;
}
