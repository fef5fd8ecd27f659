import type { Field } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';

/** A driver value back to the canonical value its field type works with. */
export function canonical(field: Field, raw: unknown, dialect: Dialect): unknown {
  if (raw === null || raw === undefined) return null;
  const wire = field.type.fromDb(raw, dialect, field.def);
  const parsed = field.type.parse(wire, field.def);
  return parsed.ok ? parsed.value : wire;
}
