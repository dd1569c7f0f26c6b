import { Type } from 'typebox';
import { Nullable } from '../platform/http/schemas.ts';

export const Kind = Type.Union([Type.Literal('auto'), Type.Literal('origin'), Type.Literal('copy')], {
  description: '`auto` (default): the origin the first time, a copy afterwards.',
});

export const PrintBody = Type.Object({ kind: Type.Optional(Kind) }, { additionalProperties: false, description: 'Optional.' });

export const MAX_EMAIL_RECIPIENTS = 5;

export const EmailBody = Type.Object(
  {
    to: Type.Array(Type.String({ format: 'email', maxLength: 254 }), {
      minItems: 1,
      maxItems: MAX_EMAIL_RECIPIENTS,
      description: 'One message per address, 1 to 5 addresses.',
    }),
  },
  { additionalProperties: false },
);

export const Warning = Type.Object({ code: Type.String(), message: Type.String() });

export const PrintLogEntry = Type.Object({
  id: Type.String(),
  variant: Type.Union([Type.Literal('origin'), Type.Literal('copy')]),
  channel: Type.Union([Type.Literal('print'), Type.Literal('share'), Type.Literal('email')]),
  fileId: Type.String(),
  keyPrefix: Nullable(Type.String()),
  recipients: Nullable(Type.Array(Type.String())),
  createdAt: Type.String({ format: 'date-time' }),
});

export const Variant = Type.Union([Type.Literal('origin'), Type.Literal('copy')]);
