import type { FieldType } from '../field-type.js';
import type { ScalarType } from '../types.js';
import { bigIntType } from './big-int-type.js';
import { booleanType } from './boolean-type.js';
import { dateOnlyType } from './date-only-type.js';
import { dateType } from './date-type.js';
import { decimalType } from './decimal-type.js';
import { doubleType, floatType } from './double-type.js';
import { integerType } from './integer-type.js';
import { arrayType, jsonType } from './json-type.js';
import { nanoidType } from './nanoid-type.js';
import { passwordType } from './password-type.js';
import { sortType } from './sort-type.js';
import { stringType } from './string-type.js';
import { textType } from './text-type.js';
import { timeType } from './time-type.js';
import { uuidType } from './uuid-type.js';

/** Every scalar type has an entry, or this fails to compile. */
export const FIELD_TYPES: Record<ScalarType, FieldType> = {
  string: stringType,
  text: textType,
  integer: integerType,
  bigInt: bigIntType,
  float: floatType,
  double: doubleType,
  decimal: decimalType,
  boolean: booleanType,
  date: dateType,
  dateOnly: dateOnlyType,
  time: timeType,
  json: jsonType,
  array: arrayType,
  uuid: uuidType,
  nanoid: nanoidType,
  password: passwordType,
  sort: sortType,
};
