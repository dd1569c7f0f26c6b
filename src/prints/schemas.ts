import { Type } from 'typebox';
import { Nullable } from '../platform/http/schemas.ts';
import { enumOf } from '../platform/http/enums.ts';
import { PRINT_CHANNELS, PRINT_KINDS, PRINT_VARIANTS } from './lists.ts';

export const Kind = enumOf(PRINT_KINDS, {
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
  variant: enumOf(PRINT_VARIANTS),
  channel: enumOf(PRINT_CHANNELS),
  fileId: Type.String(),
  keyPrefix: Nullable(Type.String()),
  recipients: Nullable(Type.Array(Type.String())),
  createdAt: Type.String({ format: 'date-time' }),
});

export const Variant = enumOf(PRINT_VARIANTS);
