import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidParams, errors, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { israelDate } from '../platform/clock.ts';
import { validation } from '../platform/errors.ts';
import { businessOf } from '../businesses/index.ts';
import { canonicalDecimal, rateProblem } from './decimal.ts';
import { deleteBusinessRate, listBusinessRates, setBusinessRate } from './business-rates.ts';
import { exchangeRateDeps } from './deps.ts';
import { rateForDocument } from './rate-for-document.ts';
import {
  BusinessRate,
  checkForeignCurrency,
  CurrencyDateParams,
  CurrencyParams,
  DocumentRateView,
  ListQuery,
  RateBody,
  RateQuery,
  type RateBodyInput,
} from './schemas.ts';

// No tag of their own in platform/http/openapi.ts TAGS yet: agreed rates are a setting of the business.
const tags = ['exchange-rates'];
// What a document would use is read by keys that write documents; agreed rates are business settings.
const read = { scope: 'documents' as const };
const settings = { scope: 'businesses' as const };

export function registerExchangeRateRoutes(api: FastifyInstance, s: Services): void {
  registerRateReadRoutes(api, s);
  registerRateWriteRoutes(api, s);
}

/** The rate for a date, and the rates the business set. */
function registerRateReadRoutes(api: FastifyInstance, s: Services): void {
  api.get(
    '/businesses/:bid/exchange-rates/:currency',
    {
      config: read,
      schema: {
        tags,
        operationId: 'getExchangeRate',
        summary: "The exchange rate a document of `date` in this currency would use: the business's agreed rate, else the Bank of Israel representative rate",
        params: CurrencyParams,
        querystring: RateQuery,
        response: { 200: Ok({ exchangeRate: DocumentRateView }), ...errors(...AUTH_ERRORS, 503) },
      },
    },
    async (req) => {
      const { currency } = req.params as { currency: string };
      checkForeignCurrency(currency);
      const date = (req.query as { date?: string }).date ?? israelDate(s.clock.now());
      const found = await rateForDocument(exchangeRateDeps(s), ctxOf(req).database.db, { businessId: businessOf(req).id, currency, documentDate: date });
      return { ok: true as const, exchangeRate: { currency, ...found } };
    },
  );

  api.get(
    '/businesses/:bid/exchange-rates',
    {
      config: settings,
      schema: {
        tags,
        operationId: 'listExchangeRates',
        summary: "The business's agreed exchange rates, by currency and effective-from date",
        params: BidParams,
        querystring: ListQuery,
        response: { 200: Ok({ exchangeRates: Type.Array(BusinessRate) }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const { currency } = req.query as { currency?: string };
      return { ok: true as const, exchangeRates: await listBusinessRates(ctxOf(req).database.db, businessOf(req).id, currency) };
    },
  );
}

/** Set and remove the business's own rate of a day. */
function registerRateWriteRoutes(api: FastifyInstance, s: Services): void {
  api.put(
    '/businesses/:bid/exchange-rates/:currency',
    {
      config: settings,
      schema: {
        tags,
        operationId: 'setExchangeRate',
        summary: "Set (or replace) the business's agreed rate of a currency from a date on; audited",
        params: CurrencyParams,
        body: RateBody,
        response: { 200: Ok({ exchangeRate: BusinessRate, created: Type.Boolean() }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const { currency } = req.params as { currency: string };
      checkForeignCurrency(currency);
      const body = req.body as RateBodyInput;
      const problem = rateProblem(body.rate);
      if (problem) throw validation('body.rate', problem);
      const input = { currency, effectiveFrom: body.effectiveFrom, rate: canonicalDecimal(body.rate)! };
      const result = await setBusinessRate(ctx.database, { at: s.clock.now(), actor: ctx.actor, businessId: businessOf(req).id, input });
      return { ok: true as const, exchangeRate: result.rate, created: result.created };
    },
  );

  api.delete(
    '/businesses/:bid/exchange-rates/:currency/:effectiveFrom',
    {
      config: settings,
      schema: {
        tags,
        operationId: 'deleteExchangeRate',
        summary: 'Remove an agreed rate (documents already issued keep the rate they used); audited',
        params: CurrencyDateParams,
        response: { 200: Ok({ exchangeRate: BusinessRate }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const { currency, effectiveFrom } = req.params as { currency: string; effectiveFrom: string };
      checkForeignCurrency(currency);
      const removed = await deleteBusinessRate(ctx.database, { at: s.clock.now(), actor: ctx.actor, businessId: businessOf(req).id, currency, effectiveFrom });
      return { ok: true as const, exchangeRate: removed };
    },
  );
}
