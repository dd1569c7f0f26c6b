import { Type, type Static } from 'typebox';
import { EVENT_NAMES } from '../platform/catalog/events.ts';
import { IsoDateTime, Nullable } from '../platform/http/schemas.ts';
import { CursorQuery } from '../platform/http/cursor.ts';
import { enumOf } from '../platform/http/enums.ts';
import { MODES } from '../platform/db/mode.ts';

const EventType = enumOf(EVENT_NAMES, { description: 'An event name (docs/webhooks.md, Events).' });

/** One recorded event, as `GET /v1/events` answers it (the outbox row; webhooks deliver the same `data`). */
export const Event = Type.Object(
  {
    id: Type.String({ description: '`evt_…`; deliveries of the event name it as `eventId`.' }),
    type: EventType,
    mode: enumOf(MODES, { description: 'The database the event was recorded in (the key’s mode).' }),
    businessId: Nullable(Type.String()),
    data: Type.Object({}, { additionalProperties: true, description: 'The event’s summary: the `data` of its webhook envelope.' }),
    createdAt: IsoDateTime,
  },
  { title: 'Event' },
);
export type EventView = Static<typeof Event>;

export const EventsQuery = Type.Object(
  {
    type: Type.Optional(
      Type.Array(EventType, {
        minItems: 1,
        maxItems: EVENT_NAMES.length,
        description: 'Only these event names: repeat the parameter (`type=a&type=b`) or separate them with commas.',
      }),
    ),
    businessId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only the events of this business.' })),
    createdAfter: Type.Optional({ ...IsoDateTime, description: 'Only events created strictly after this instant.' }),
    createdBefore: Type.Optional({ ...IsoDateTime, description: 'Only events created strictly before this instant.' }),
    take: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
    cursor: Type.Optional(CursorQuery),
  },
  { additionalProperties: false },
);
export type EventsQueryValue = Static<typeof EventsQuery>;
