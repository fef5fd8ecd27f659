/**
 * One field of every value type, with short names (`s`, `i`, `dec`, …), for tests that write
 * and read every type: values.test.ts (round trips) and direct-writes.test.ts (events).
 */
export const TYPED_FIELDS = [
  { name: 's', type: 'string', length: 10 },
  { name: 't', type: 'text' },
  { name: 'i', type: 'integer' },
  { name: 'b', type: 'bigInt' },
  { name: 'f', type: 'float' },
  { name: 'd', type: 'double' },
  { name: 'dec', type: 'decimal', precision: 12, scale: 3 },
  { name: 'bool', type: 'boolean' },
  { name: 'dt', type: 'date' },
  { name: 'day', type: 'dateOnly' },
  { name: 'tm', type: 'time' },
  { name: 'j', type: 'json' },
  { name: 'arr', type: 'array' },
  { name: 'u', type: 'uuid' },
  { name: 'n', type: 'nanoid' },
  { name: 'pw', type: 'password' },
];
