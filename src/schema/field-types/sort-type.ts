import type { FieldType } from '../field-type.js';
import { integerType } from './integer-type.js';

/** An integer position; a create without a value gets max + 1 (see actions/insert-items). */
export const sortType: FieldType = { ...integerType, name: 'sort' };
