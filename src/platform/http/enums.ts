/** A closed list as its schema: the one `as const` array feeds the enum, the TypeScript type and the OpenAPI document. */
import { Type, type TSchemaOptions } from 'typebox';

/** `{ type: 'string', enum: list }`, statically one of the list's members. */
export function enumOf<const T extends string>(list: readonly T[], options: TSchemaOptions = {}) {
  return Type.Enum([...list], { type: 'string', ...options });
}
