import { Type, type Static } from 'typebox';
import { IsoDateTime, Nullable } from '../platform/http/schemas.ts';
import { CursorQuery } from '../platform/http/cursor.ts';
import { CALLER_REQUEST_ID } from '../platform/http/request-id.ts';

export const ApiRequest = Type.Object(
  {
    requestId: Type.String({ description: 'The X-Request-Id of the answer (the caller’s own when it sent a well-formed one).' }),
    method: Type.String(),
    path: Type.String({ description: 'The path asked for, without the query string.' }),
    status: Type.Integer(),
    reason: Nullable(Type.String({ description: 'The `reason` of an error answer; null for a success.' })),
    durationMs: Type.Integer(),
    keyPrefix: Type.String({ description: 'The prefix of the key that sent it.' }),
    createdAt: IsoDateTime,
  },
  { title: 'ApiRequest' },
);
export type ApiRequestView = Static<typeof ApiRequest>;

export const RequestsQuery = Type.Object(
  {
    requestId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, pattern: CALLER_REQUEST_ID.source, description: 'Only the request(s) with this X-Request-Id.' }),
    ),
    take: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
    cursor: Type.Optional(CursorQuery),
  },
  { additionalProperties: false },
);
