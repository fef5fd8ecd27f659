import { everyFieldTypeFields } from '../fixtures/every-field-type.js';

/**
 * One field of every value type, with short names (`s`, `i`, `dec`, …), for tests that write
 * and read every type: values.test.ts (round trips), direct-writes.test.ts (events) and
 * row-decoder.test.ts. Sort fields number rows themselves, so they are left out.
 */
export const TYPED_FIELDS = everyFieldTypeFields(
  {
    string: { name: 's', length: 10 },
    text: { name: 't' },
    integer: { name: 'i' },
    bigInt: { name: 'b' },
    float: { name: 'f' },
    double: { name: 'd' },
    decimal: { name: 'dec', precision: 12, scale: 3 },
    boolean: { name: 'bool' },
    date: { name: 'dt' },
    dateOnly: { name: 'day' },
    time: { name: 'tm' },
    json: { name: 'j' },
    array: { name: 'arr' },
    uuid: { name: 'u' },
    nanoid: { name: 'n' },
    password: { name: 'pw' },
  },
  ['sort'],
);
