import { ApiError } from '../errors/api-error.js';
import type { Collection, Field } from '../schema/collection.js';

/** The fields a read returns: `fields` picks, `except` removes; names must exist and be readable. */
export function bindSelection(collection: Collection, fields?: string[], except?: string[]): Field[] {
  const resolve = (name: string): Field => {
    const field = collection.fields.get(name);
    if (field === undefined || field.hidden) {
      throw new ApiError('FIELDS_UNKNOWN', `${collection.name} has no readable field ${name}`, { field: name });
    }
    return field;
  };
  let selected = fields === undefined || fields.length === 0 ? [...collection.visible] : [...new Set(fields.map(resolve))];
  if (except !== undefined && except.length > 0) {
    const drop = new Set(except.map(resolve));
    selected = selected.filter((field) => !drop.has(field));
  }
  return selected;
}
