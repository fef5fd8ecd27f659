import { randomBytes } from 'node:crypto';
import { fail, ok, type FieldType } from '../field-type.js';

const ALPHABET = 'useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict';
export const NANOID_LENGTH = 21;

/** 21 symbols of a 64-letter URL-safe alphabet: 126 random bits, as nanoid does. */
export function newNanoid(): string {
  const bytes = randomBytes(NANOID_LENGTH);
  let id = '';
  for (const byte of bytes) id += ALPHABET[byte & 63];
  return id;
}

export const nanoidType: FieldType = {
  name: 'nanoid',
  column: () => ({ kind: 'varchar', length: NANOID_LENGTH }),
  parse: (value) =>
    typeof value === 'string' && /^[A-Za-z0-9_-]{1,21}$/.test(value) ? ok(value) : fail('must be a nanoid'),
  toDb: (value) => value,
  fromDb: (raw) => String(raw),
  capability: 'ordered',
  options: [],
  indexable: true,
};
