import type { Api } from '../platform/http/api.ts';
import { Type } from 'typebox';
import { ctxOf, KEY_MODES } from '../platform/http/context.ts';
import { enumOf } from '../platform/http/enums.ts';
import { MODES } from '../platform/db/mode.ts';
import { SCOPES } from '../platform/catalog/scopes.ts';
import { AUTH_ERRORS, errors, IsoDate, IsoDateTime, Nullable, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { listKeys } from './keys.ts';
import { usageByDay } from './usage.ts';

const KeyListing = Type.Object({
  id: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, for recognising it.' }),
  label: Nullable(Type.String()),
  mode: enumOf(KEY_MODES),
  scopes: Type.Array(enumOf(SCOPES)),
  createdAt: IsoDateTime,
  lastUsedAt: Nullable(IsoDateTime),
  expiresAt: Nullable(IsoDateTime),
  revokedAt: Nullable(IsoDateTime),
  current: Type.Boolean({ description: 'True for the key making this request.' }),
});

const UsageDay = Type.Object({
  date: IsoDate,
  requests: Type.Integer(),
  documentsIssued: Type.Integer(),
  expenseRows: Type.Integer(),
  ocrScans: Type.Integer(),
  emailsSent: Type.Integer(),
});

export function registerAccountRoutes(api: Api, s: Services): void {
  api.get(
    '/keys',
    {
      schema: {
        tags: ['keys'],
        operationId: 'listKeys',
        summary: 'List every key of the account, marking the calling key',
        response: { 200: Ok({ keys: Type.Array(KeyListing) }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const keys = await listKeys(s.databases.live.db, ctx.key.accountId);
      return {
        ok: true as const,
        keys: keys.map(({ accountId: _a, ...k }) => ({ ...k, current: k.id === ctx.key.id })),
      };
    },
  );

  api.get(
    '/usage',
    {
      schema: {
        tags: ['usage'],
        operationId: 'getUsage',
        summary: "Per-day counts for the key's account in the key's mode",
        querystring: Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 30 })) }, { additionalProperties: false }),
        response: { 200: Ok({ mode: enumOf(MODES), days: Type.Array(UsageDay) }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const { days = 30 } = req.query;
      return { ok: true as const, mode: ctx.mode, days: await usageByDay(s, ctx.mode, ctx.key.accountId, days) };
    },
  );
}
