import { Type, type Static } from 'typebox';
import { EVENT_NAMES } from '../platform/catalog/events.ts';
import { IsoDateTime, Nullable } from '../platform/http/schemas.ts';
import { CursorQuery } from '../platform/http/cursor.ts';
import { enumOf } from '../platform/http/enums.ts';
import { DELIVERY_STATUSES } from './schedule.ts';

const EventName = enumOf(EVENT_NAMES, { description: 'An event name (see Events).' });
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'HTTPS only; must reach a public host.' });
const Events = Type.Array(EventName, { maxItems: EVENT_NAMES.length * 2, description: 'Events to receive; empty means all.' });

export const WebhookCreate = Type.Object(
  {
    url: Url,
    events: Type.Optional(Events),
    businessId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'Narrows to one business of the account.' }))),
  },
  { additionalProperties: false },
);
export type WebhookCreateBody = Static<typeof WebhookCreate>;

export const WebhookPatch = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    active: Type.Optional(Type.Boolean({ description: '`true` re-arms an endpoint that was disabled after repeated failures.' })),
  },
  { additionalProperties: false },
);
export type WebhookPatchBody = Static<typeof WebhookPatch>;

export const Webhook = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Array(EventName, { description: 'Events received; empty means all.' }),
    businessId: Nullable(Type.String()),
    active: Type.Boolean(),
    disabledAt: Nullable(IsoDateTime),
    consecutiveFailures: Type.Integer({ description: 'Failed attempts since the last success; 20 disable the endpoint.' }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { title: 'WebhookEndpoint' },
);
export type WebhookView = Static<typeof Webhook>;

export const WebhookWithSecret = Type.Object(
  {
    ...Webhook.properties,
    secret: Type.String({ description: '`whsec_…`, shown only in the create response.' }),
  },
  { title: 'WebhookEndpointWithSecret' },
);

export const Attempt = Type.Object({
  n: Type.Integer(),
  at: IsoDateTime,
  responseStatus: Nullable(Type.Integer()),
  durationMs: Type.Integer(),
  error: Nullable(Type.String()),
  responseBody: Nullable(Type.String({ description: 'The first 4 KB of the answer.' })),
});

export const Delivery = Type.Object(
  {
    id: Type.String({ description: '`del_…`; the same id on every retry (receivers dedupe on it).' }),
    webhookId: Type.String(),
    eventId: Nullable(Type.String()),
    event: EventName,
    businessId: Nullable(Type.String()),
    status: enumOf(DELIVERY_STATUSES),
    attempts: Type.Array(Attempt),
    nextAttemptAt: Nullable(IsoDateTime),
    deliveredAt: Nullable(IsoDateTime),
    failedAt: Nullable(IsoDateTime),
    createdAt: IsoDateTime,
  },
  { title: 'Delivery' },
);
export type DeliveryView = Static<typeof Delivery>;

export const DeliveriesQuery = Type.Object(
  {
    before: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'A delivery id (the `next` of the previous page): answers older deliveries. Kept for compatibility: page with `cursor`.',
      }),
    ),
    cursor: Type.Optional(CursorQuery),
    take: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 200 })),
  },
  { additionalProperties: false },
);

export const WebhooksQuery = Type.Object(
  { take: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })), cursor: Type.Optional(CursorQuery) },
  { additionalProperties: false },
);

export const WebhookReplay = Type.Object(
  {
    failed: Type.Optional(Type.Literal(true, { description: 'Replay every delivery this endpoint failed (all its attempts used).' })),
    since: Type.Optional({
      ...IsoDateTime,
      description: 'Replay every event recorded since this instant (events are kept 30 days), delivered or not, and those the endpoint never had.',
    }),
    events: Type.Optional(
      Type.Array(EventName, {
        minItems: 1,
        maxItems: EVENT_NAMES.length * 2,
        description: "Only these events; default: all (`failed`) or the endpoint's own filter (`since`).",
      }),
    ),
  },
  { additionalProperties: false, description: 'Either `failed: true` or `since`.' },
);
export type WebhookReplayBody = Static<typeof WebhookReplay>;

export const DeliveryParams = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, description: 'The webhook endpoint (`we_…`).' }),
    deliveryId: Type.String({ minLength: 1, maxLength: 64, description: 'One of its deliveries (`del_…`).' }),
  },
  { additionalProperties: false },
);
